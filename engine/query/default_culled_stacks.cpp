// Each bucket's stack culled by default (default_culled_stacks.h).
#include "engine/query/default_culled_stacks.h"

#include "engine/query/cull_list.h"
#include "engine/query/stack_plan.h"

namespace heapql {

std::vector<StackId> default_culled_stacks(const TraceTables& tables) {
  StackFilters filters;
  filters.cull.add_all(default_cull_patterns());  // as compile_stack_filters adds them
  StackPlan plan(tables, std::move(filters));
  std::vector<StackId> culled(tables.bucket_count());
  for (std::size_t b = 0; b < culled.size(); ++b) {
    culled[b] = plan.culled(tables.bucket(BucketId(static_cast<std::uint32_t>(b))).stack);
  }
  return culled;
}

}  // namespace heapql
