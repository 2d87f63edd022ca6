// The query the store's stack view (engine/store/stack_view.h) answers, as
// a Query value: every row of `--by stack` over the whole trace, under the
// built-in cull list alone, with no filter. The view is built by answering
// it, and answers a query exactly when the two answer alike
// (query_fields.h), so what the view holds is said once.
#pragma once

#include "engine/query/query.h"

namespace heapql {

Query stack_view_query();

// Whether a whole-trace view made for `made_for` (the store's stack view, or
// a session's view by another level) answers `asked`: its rows (in any
// order, cut anywhere), or its totals. A view holds the five xperf measures'
// columns, so a query ranked by impacting never is (nor can it be: only a
// query of impacting types has that sort, validate()).
bool view_answers(const Query& made_for, const Query& asked);

// Whether the stack view answers `asked` (view_answers).
bool stack_view_answers(const Query& asked);

// The impacting types (a bit per Impacting) whose blocks `asked` counts,
// when it is the view's query but for `--impacting` AIFI, AIFO or both
// (sorted by any measure, impacting too), else 0. Over the whole trace
// every block is allocated inside: the freed ones are AIFI, the others AIFO,
// so each view row splits into the two by its so and soc (docs/store.md).
// Its src cannot be split: the view answers only where every src is 0.
unsigned stack_view_impacting_subset(const Query& asked);

}  // namespace heapql
