// The stack view's query as a value, and the view's eligibility as a
// comparison with it (stack_view_query.h).
#include "engine/query/stack_view_query.h"

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

}  // namespace heapql
