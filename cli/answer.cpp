// One query answered from a trace, or from its store, for the commands that
// answer queries (query, import, info, diff).
#include "cli/answer.h"

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/store_file/store_reader.h"

namespace heapql::cli {

// Query errors (patterns, cull files) are found before the trace is read, so
// they are told apart from trace errors by exit code.
StackFilters validate_query(const Query& query) {
  try {
    validate(query);
    return compile_stack_filters(query);
  } catch (const Error& e) {
    throw UsageError{e.what()};
  }
}

Answer answer(const std::string& path, const Query& query, const CommonOptions& common, bool keep_store) {
  return answer(path, query, validate_query(query), common, keep_store);
}

Answer answer(const std::string& path, const Query& query, StackFilters filters, const CommonOptions& common,
              bool keep_store) {
  OpenOptions open = open_options_of(common);
  Answer a;
  if (const auto found = store_answering(path, open)) {
    store_file::OpenedStore opened = open_store(*found, open);
    a.store = std::move(opened.store);
    a.store_file = std::move(opened.info);
  } else if (common.via_store || keep_store || query.embedded_suppressions) {
    open.use_store = false;  // looked for above, and said why not
    a.store = load_trace(path, open);
  }
  // Errors without a place (the trace's own suppressions, S records; sums
  // past what any address space holds) are of the trace named.
  if (a.store) {
    a.source = a.store->source();
    naming_file(path, [&] {
      add_embedded_suppressions(filters, query, a.source.embedded_suppressions);
      Aggregator aggregator(a.store->tables(), query, std::move(filters));
      aggregator.answer_from(*a.store);
      a.result = aggregator.result(a.source);
    });
    return a;
  }
  a.tables = std::make_unique<TraceTables>();
  Aggregator aggregator(*a.tables, query, std::move(filters));
  a.source = read_trace(path, *a.tables, aggregator, open);  // no store answers for it (looked for above)
  a.tables->release_indexes();  // before the roll-up allocates its arrays
  naming_file(path, [&] { a.result = aggregator.result(a.source); });
  return a;
}

}  // namespace heapql::cli
