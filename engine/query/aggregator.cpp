// The aggregator's construction, its group keys (a counted bucket's key,
// interned once) and its result; the rest of it is in the files
// aggregator.h lists.
#include "engine/query/aggregator.h"

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
      keys_(plan_.query().by),
      series_bucket_ns_(plan_.first_series_bucket_ns()) {
  for (const std::string& note : plan_.filters().suppressions.notes) emit_warning(nullptr, note + "\n");
}

std::int32_t Aggregator::intern_key(const Bucket& bucket, StackId culled_stack) {
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
  if (view_store_ != nullptr) {
    roll_up_from_view(r);
  } else {
    roll_up_buckets(r);
  }
  return r;
}

}  // namespace heapql
