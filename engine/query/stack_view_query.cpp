// The stack view's query as a value, and the view's eligibility as a
// comparison with it (stack_view_query.h).
#include "engine/query/stack_view_query.h"

#include <algorithm>

#include "engine/query/query_fields.h"

namespace heapql {

Query stack_view_query() {
  Query query;  // the whole trace, the built-in cull list, no filter
  query.by = {GroupBy::kStack};
  return query;
}

bool view_answers(const Query& made_for, const Query& asked) {
  return asked.sort != Measure::kImpacting && answers_alike(made_for, asked);
}

bool stack_view_answers(const Query& asked) { return view_answers(stack_view_query(), asked); }

unsigned stack_view_impacting_subset(const Query& asked) {
  if (asked.impacting.empty()) return 0;
  if (std::find(asked.by.begin(), asked.by.end(), GroupBy::kImpacting) != asked.by.end()) return 0;
  unsigned types = 0;
  for (const Impacting type : asked.impacting) {
    if (type != Impacting::kAifi && type != Impacting::kAifo) return 0;
    types |= 1u << static_cast<unsigned>(type);
  }
  Query all_blocks = asked;
  all_blocks.impacting.clear();
  all_blocks.sort = Measure::kSo;  // any sort of the view's measures: presentation
  return stack_view_answers(all_blocks) ? types : 0;
}

}  // namespace heapql
