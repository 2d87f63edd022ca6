// A trace opened to answer queries (trace_session.h).
#include "engine/session/trace_session.h"

#include <stdexcept>

#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/query/default_culled_stacks.h"
#include "engine/query/row_detail.h"
#include "engine/query/whole_trace_views.h"
#include "engine/store_file/store_reader.h"
#include "engine/util/on_both_cores.h"

namespace heapql {

TraceSession::TraceSession(std::string path, OpenOptions options)
    : path_(std::move(path)), trace_(trace_of_journal_path(path_)), options_(std::move(options)) {}

const std::optional<FoundStore>& TraceSession::found_store() {
  if (store_looked_for_) return found_store_;
  store_looked_for_ = true;
  // A recording in progress answers the part recorded so far, unless the
  // store it writes at its end is there already; a journal named is read
  // even with --no-store.
  std::optional<LiveJournalFound> journal;
  if (options_.use_store || trace_ != path_) journal = live_journal_for(path_, options_.confined);
  if (journal && journal->writer_alive) {
    found_store_ = fresh_store_quietly(trace_, options_);
    if (!found_store_) live_journal_ = std::move(journal);
    return found_store_;
  }
  found_store_ = store_answering(trace_, options_);
  if (journal && !found_store_) warn_journal_left(*journal, options_);
  return found_store_;
}

void TraceSession::open_live() {
  try {
    store_ = open_live_journal(*live_journal_, options_);
    return;
  } catch (const Error&) {
    if (std::optional<LiveJournalFound> now = live_journal_for(path_, options_.confined); now && now->writer_alive) throw;
  }
  // The recording ended while the journal was read: its store is there now
  // (or, if it died, the trace is read).
  live_journal_.reset();
  found_store_ = store_answering(trace_, options_);
  if (found_store_) {
    store_file::OpenedStore opened = open_store(*found_store_, options_);
    store_ = std::move(opened.store);
    store_file_ = std::move(opened.info);
  } else {
    store_ = load_trace(trace_, options_);
  }
}

void TraceSession::open() {
  if (store_) return;
  if (const std::optional<FoundStore>& found = found_store()) {
    store_file::OpenedStore opened = open_store(*found, options_);
    store_ = std::move(opened.store);
    store_file_ = std::move(opened.info);
  } else if (live_journal_) {
    open_live();
  } else {
    store_ = load_trace(trace_, options_);
  }
}

void TraceSession::prepare_for_many_queries() {
  if (prepared_) return;
  if (!store_) throw std::logic_error("TraceSession::prepare_for_many_queries before open()");
  prepared_ = true;
  // What fails a check is left to the queries that read it: each answers
  // as without this, and says what is wrong.
  try {
    store_->check_tables();
    default_culled_ = std::make_shared<const std::vector<StackId>>(default_culled_stacks(store_->tables()));
  } catch (const Error&) {
    return;
  }
  // The views from the bucket sums on one core, the window index from the
  // block columns on the other.
  on_both_cores(
      [&] {
        try {
          store_->check_bucket_sums();
          if (store_->columns_but_blocks().has_bucket_sums()) {
            whole_trace_views_ = std::make_shared<const WholeTraceViews>(*store_, *default_culled_);
          }
          // The store's own view is checked when first read: here, not in the first query.
          if (store_->stack_view() != nullptr) store_->check_stack_view();
        } catch (const Error&) {
        }
      },
      [&] {
        try {
          store_->check_blocks();
          window_index_ = std::make_shared<const WindowIndex>(store_->tables(), store_->columns());
        } catch (const Error&) {
        }
      });
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
    if (default_culled_) aggregator.use_default_culled(*default_culled_);
    aggregator.answer_from(*store_, window_index_.get(), whole_trace_views_.get());
    a.result = aggregator.result(a.source);
    if (detail_filters) a.result.detail = describe_row(*store_, query, std::move(*detail_filters), a.result);
  });
  return a;
}

void TraceSession::check_tables() const {
  if (store_) store_->check_tables();
}

Answer TraceSession::answer_once(const Query& query, StackFilters filters, bool keep_store) {
  // The trace's own suppressions must be known before its first event, and
  // are read with it: such a query is answered from the trace's store.
  // So must a drill-down, which reads the window's blocks again once the
  // rows are known (row_detail.h).
  if (store_ || found_store() || live_journal_ || keep_store || query.embedded_suppressions || query.detail) {
    open();
    return answer(query, std::move(filters));
  }
  auto tables = std::make_shared<TraceTables>();
  Answer a;
  Aggregator aggregator(*tables, query, std::move(filters));
  a.source = read_trace(trace_, *tables, aggregator, options_);
  tables->release_indexes();  // before the roll-up allocates its arrays
  // Its errors without a place (sums past 2^63-1 bytes) are the trace's.
  naming_file(path_, [&] { a.result = aggregator.result(a.source); });
  a.tables = std::move(tables);
  return a;
}

}  // namespace heapql
