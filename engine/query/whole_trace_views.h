// Whole-trace answers grouped by one level, each made once for a session
// that answers many queries (TraceSession::prepare_for_many_queries): the
// store's stack view (engine/store/stack_view.h) has the rows of `--by
// stack`; these are the same for `--by frame`, `image`, `process`, `heap`,
// `thread` and `kind` (and `stack`, when the store has no view this heapql
// reads), each made by the aggregator from the bucket sums as the query
// would be answered (Aggregator::build_whole_trace_view). A query that asks
// exactly one of them, in any order and cut anywhere, reads its rows instead
// of planning and rolling up every bucket (docs/architecture.md, "Many
// queries from one session").
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "engine/query/query.h"
#include "engine/store/packed_stack_view.h"
#include "engine/store/stack_view.h"
#include "engine/store/trace_store.h"

namespace heapql {

struct WholeTraceView {
  Query query;     // the query it answers (whole trace, built-in cull list, no filter)
  PackedStackViewSink columns;  // as build_whole_trace_view handed them over
  StackView rows;               // of `columns`; its stacks are the level's key values
};

class WholeTraceViews {
 public:
  // From a store whose bucket sums passed their check; `default_culled`
  // (default_culled_stacks.h) must outlive the building only.
  WholeTraceViews(const TraceStore& store, std::span<const StackId> default_culled);

  // The view that answers `query` (stack_view_query.h's rule), if any.
  const StackView* answering(const Query& query) const;

 private:
  std::vector<std::unique_ptr<WholeTraceView>> views_;
};

}  // namespace heapql
