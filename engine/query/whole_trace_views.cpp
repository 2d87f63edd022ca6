// A session's whole-trace views (whole_trace_views.h).
#include "engine/query/whole_trace_views.h"

#include "engine/query/aggregator.h"
#include "engine/query/cull_list.h"
#include "engine/query/query_fields.h"
#include "engine/query/stack_view_query.h"

namespace heapql {

WholeTraceViews::WholeTraceViews(const TraceStore& store, std::span<const StackId> default_culled) {
  const StoreColumns& columns = store.columns_but_blocks();
  const BucketSumChunks sums = [&](const std::function<void(std::span<const BucketSum>)>& chunk) {
    columns.bucket_sums.each_chunk(chunk);
  };
  const StackView* stored = store.stack_view();
  const bool stack_view_read = stored != nullptr && stored->cull_fingerprint == default_cull_fingerprint();
  for (const GroupBy level : {GroupBy::kStack, GroupBy::kFrame, GroupBy::kImage, GroupBy::kProcess, GroupBy::kHeap,
                              GroupBy::kThread, GroupBy::kKind}) {
    if (level == GroupBy::kStack && stack_view_read) continue;  // the store's answers it
    auto view = std::make_unique<WholeTraceView>();
    view->query = stack_view_query();
    view->query.by = {level};
    Aggregator::build_whole_trace_view(store.tables(), view->query, sums, default_culled, view->columns);
    view->rows = view->columns.view();
    views_.push_back(std::move(view));
  }
}

const StackView* WholeTraceViews::answering(const Query& query) const {
  for (const auto& view : views_) {
    if (view_answers(view->query, query)) return &view->rows;
  }
  return nullptr;
}

}  // namespace heapql
