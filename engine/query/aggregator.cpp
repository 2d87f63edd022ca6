// The aggregator's construction, its group keys (a counted bucket's key,
// interned once) and its result; the rest of it is in the files
// aggregator.h lists.
#include "engine/query/aggregator.h"

#include <algorithm>
#include <utility>

#include "engine/error.h"
#include "engine/query/aggregator_count_steps.h"
#include "engine/query/group_key.h"
#include "engine/warnings.h"

namespace heapql {

namespace {

StackFilters filters_of(const Query& query, std::span<const std::string> embedded) {
  StackFilters filters = compile_stack_filters(query);
  add_embedded_suppressions(filters, query, embedded);
  return filters;
}

}  // namespace

void bucket_block_count_overflow() { throw Error("more than 2^32-1 blocks in one bucket (size and stack)"); }

Aggregator::Aggregator(const TraceTables& tables, const Query& query,
                       std::span<const std::string> embedded_suppressions)
    : Aggregator(tables, query, filters_of(query, embedded_suppressions)) {}

Aggregator::Aggregator(const TraceTables& tables, Query query, StackFilters filters)
    : tables_(tables),
      plan_(tables, std::move(query), std::move(filters)),
      counts_every_bucket_(plan_.counts_every_bucket()),
      key_reads_culled_stack_(std::any_of(plan_.query().by.begin(), plan_.query().by.end(),
                                          [](GroupBy level) {
                                            return level == GroupBy::kStack || level == GroupBy::kFrame ||
                                                   level == GroupBy::kImage;
                                          })),
      keys_(plan_.query().by),
      series_bucket_ns_(plan_.first_series_bucket_ns()) {
  for (const std::string& note : plan_.filters().suppressions.notes) emit_warning(nullptr, note + "\n");
}

void Aggregator::use_default_culled(std::span<const StackId> culled) {
  const Query& query = plan_.query();
  if (query.default_cull && query.cull.empty() && query.cull_files.empty()) default_culled_ = culled;
}

std::int32_t Aggregator::intern_key(BucketId id, const Bucket& bucket) {
  StackId culled_stack;
  if (key_reads_culled_stack_) {
    culled_stack = id.index() < default_culled_.size() ? default_culled_[id.index()] : plan_.culled(bucket.stack);
  }
  key_scratch_.clear();
  for (GroupBy level : plan_.query().by) key_scratch_.push_back(key_level_value(tables_, level, bucket, culled_stack));
  return keys_.intern(key_scratch_);
}

Result Aggregator::result(const SourceInfo& source) {
  Result r;
  r.query = plan_.query();
  r.realloc_known = source.realloc_marked;
  r.impacting_measures = plan_.impacting_mode();
  r.excluded_blocks = tallies_.excluded_blocks;
  r.excluded_bytes = tallies_.excluded_bytes;
  r.temporary_blocks = tallies_.temporary_blocks;
  r.peak = peak_;
  r.trace_end_ns = end_ns_;
  if (series_bucket_ns_ != 0) r.series = Series{plan_.t1(), series_bucket_ns_, series_};
  if (view_ != nullptr) {
    roll_up_from_view(r);
  } else {
    roll_up_buckets(r);
  }
  return r;
}

}  // namespace heapql
