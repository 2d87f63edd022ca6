// The query plan (query_plan.h): a query's patterns compiled, its window
// and bucket layout decided, and the bucket stage of the keep rule.
#include "engine/query/query_plan.h"

#include <algorithm>
#include <utility>

#include "engine/query/cull_list.h"
#include "engine/query/id_or_name.h"
#include "engine/query/suppressions.h"

namespace heapql {

namespace {

constexpr std::int64_t kAutoSeriesStartNs = 1'000'000;  // open windows start at 1 ms buckets

void append(SuppressionList& into, SuppressionList list) {
  for (SuppressionPattern& p : list.patterns) into.patterns.push_back(std::move(p));
  for (std::string& note : list.notes) into.notes.push_back(std::move(note));
}

}  // namespace

StackFilters compile_stack_filters(const Query& query) {
  StackFilters filters;
  if (query.default_cull) filters.cull.add_all(default_cull_patterns());
  for (const std::string& text : query.cull) filters.cull.add(FramePattern::parse(text));
  for (const std::string& path : query.cull_files) filters.cull.add_all(read_cull_list(path));
  for (const std::string& text : query.require) filters.require.add(FramePattern::parse(text));
  for (const std::string& text : query.exclude) filters.exclude.add(FramePattern::parse(text));
  SuppressionList& suppressions = filters.suppressions;
  for (const std::string& text : query.suppressions) suppressions.patterns.push_back(SuppressionPattern::parse(text));
  for (const std::string& path : query.suppression_files) append(suppressions, read_suppressions(path));
  return filters;
}

void add_embedded_suppressions(StackFilters& filters, const Query& query, std::span<const std::string> embedded) {
  if (!query.embedded_suppressions) return;
  append(filters.suppressions, parse_embedded_suppressions(embedded, ""));  // callers name the trace (no location here)
}

QueryPlan::QueryPlan(const TraceTables& tables, Query query, StackFilters filters)
    : tables_(tables),
      query_(std::move(query)),
      t1_(query_.window.begin_ns),
      t2_(query_.window.end_ns.value_or(kNeverNs)),
      impacting_mode_(query_.uses_impacting()),
      impacting_level_(std::find(query_.by.begin(), query_.by.end(), GroupBy::kImpacting) != query_.by.end()),
      has_block_filters_(!query_.impacting.empty() || query_.temporary_only || query_.lifetime_min_ns ||
                         query_.lifetime_end_ns),
      needs_blocks_(query_.lifetime_min_ns || query_.lifetime_end_ns),
      // The layouts and what each one is for: bucket_states.h.
      layout_(query_.block_set == BlockSet::kAtPeak  ? BucketLayout::kPeak
              : (impacting_mode_ || t2_ != kNeverNs) ? BucketLayout::kFull
              : (t1_ <= 0 && !has_block_filters_)    ? BucketLayout::kWholeTrace
                                                     : BucketLayout::kOpenWindow),
      stack_plan_(tables, std::move(filters)) {
  validate(query_);
  for (Impacting t : query_.impacting) impacting_mask_ |= 1u << static_cast<unsigned>(t);
  if (query_.series_buckets > 0) {
    first_series_bucket_ns_ =
        query_.window.end_ns
            ? std::max<std::int64_t>(1, (t2_ - t1_ + query_.series_buckets - 1) / query_.series_buckets)
            : kAutoSeriesStartNs;
  }
}

bool QueryPlan::of_whole_trace_without_times() const {
  // A window from 0 that never closes; lifetimes and series need each
  // block's times, nothing else does.
  return t1_ <= 0 && t2_ == kNeverNs && !needs_blocks_ && first_series_bucket_ns_ == 0;
}

bool QueryPlan::counts_every_bucket() const {
  const StackFilters& patterns = stack_plan_.filters();
  return query_.size_min == 0 && !query_.size_end && query_.kinds.empty() && query_.threads.empty() &&
         query_.processes.empty() && query_.heaps.empty() && patterns.require.empty() && patterns.exclude.empty() &&
         patterns.suppressions.empty();
}

bool QueryPlan::counts_bucket(const Bucket& bucket) {
  if (bucket.size < query_.size_min) return false;
  if (query_.size_end && bucket.size >= *query_.size_end) return false;
  if (!query_.kinds.empty() && std::find(query_.kinds.begin(), query_.kinds.end(), bucket.kind) == query_.kinds.end()) {
    return false;
  }
  if (!query_.threads.empty() &&
      std::find(query_.threads.begin(), query_.threads.end(), bucket.thread) == query_.threads.end()) {
    return false;
  }
  if (!query_.processes.empty()) {
    const ProcessId process = tables_.process_of(bucket);
    if (!process.valid()) return false;
    const Process& p = tables_.process(process);
    if (!matches_id_or_name(query_.processes, p.pid, tables_.string(p.name))) return false;
  }
  if (!query_.heaps.empty()) {
    if (!bucket.heap.valid()) return false;
    const Heap& h = tables_.heap(bucket.heap);
    if (!matches_id_or_name(query_.heaps, h.handle, tables_.string(h.name))) return false;
  }
  return stack_plan_.kept(bucket.stack);
}

}  // namespace heapql
