// A trace opened to answer queries (trace_session.h).
#include "engine/session/trace_session.h"

#include <stdexcept>

#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/query/row_detail.h"
#include "engine/store_file/store_reader.h"

namespace heapql {

TraceSession::TraceSession(std::string path, OpenOptions options)
    : path_(std::move(path)), options_(std::move(options)) {}

const std::optional<FoundStore>& TraceSession::found_store() {
  if (!store_looked_for_) {
    found_store_ = store_answering(path_, options_);
    store_looked_for_ = true;
  }
  return found_store_;
}

void TraceSession::open() {
  if (store_) return;
  if (const std::optional<FoundStore>& found = found_store()) {
    store_file::OpenedStore opened = open_store(*found, options_);
    store_ = std::move(opened.store);
    store_file_ = std::move(opened.info);
  } else {
    store_ = load_trace(path_, options_);
  }
}

Answer TraceSession::answer(const Query& query, StackFilters filters) const {
  if (!store_) throw std::logic_error("TraceSession::answer before open()");
  Answer a;
  a.source = store_->source();
  a.tables = std::shared_ptr<const TraceTables>(store_, &store_->tables());
  // Errors without a place (the trace's own suppressions, S records; an
  // inconsistent store; sums past what any address space holds) are of the
  // trace named.
  naming_file(path_, [&] {
    add_embedded_suppressions(filters, query, a.source.embedded_suppressions);
    // The drill-down's pass needs the patterns too, after the rows are chosen.
    std::optional<StackFilters> detail_filters;
    if (query.detail) detail_filters = filters;
    Aggregator aggregator(*a.tables, query, std::move(filters));
    aggregator.answer_from(*store_);
    a.result = aggregator.result(a.source);
    if (detail_filters) a.result.detail = describe_row(*store_, query, std::move(*detail_filters), a.result);
  });
  return a;
}

Answer TraceSession::answer_once(const Query& query, StackFilters filters, bool keep_store) {
  // The trace's own suppressions must be known before its first event, and
  // are read with it: such a query is answered from the trace's store.
  // So must a drill-down, which reads the window's blocks again once the
  // rows are known (row_detail.h).
  if (store_ || found_store() || keep_store || query.embedded_suppressions || query.detail) {
    open();
    return answer(query, std::move(filters));
  }
  auto tables = std::make_shared<TraceTables>();
  Answer a;
  Aggregator aggregator(*tables, query, std::move(filters));
  a.source = read_trace(path_, *tables, aggregator, options_);
  tables->release_indexes();  // before the roll-up allocates its arrays
  // Its errors without a place (sums past 2^63-1 bytes) are the trace's.
  naming_file(path_, [&] { a.result = aggregator.result(a.source); });
  a.tables = std::move(tables);
  return a;
}

}  // namespace heapql
