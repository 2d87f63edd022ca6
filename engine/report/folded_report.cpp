// Collapsed ("folded") stacks, the input of flamegraph.pl, inferno and
// speedscope: one `frame;frame;... value` line per row, outermost frame first.
#include <fmt/format.h>

#include "engine/error.h"
#include "engine/report/folded_path.h"
#include "engine/report/reports.h"

namespace heapql {

void result_folded(TextOut& to, const Result& r) {
  if (r.query.sort == Measure::kImpacting) {
    // A flame graph's widths cannot be negative, and a magnitude would draw
    // shrinkage as growth.
    throw Error(kFoldedImpactingRefused);
  }
  std::string& out = to.text();
  const auto line = [&](std::string path, std::uint64_t value) {
    if (value == 0) return;  // nothing to draw, and some viewers reject 0
    fmt::format_to(std::back_inserter(out), "{} {}\n", path.empty() ? "[total]" : path, value);
  };
  for (const Row& row : r.rows) {
    line(folded_path(row.key), row.measures.value(r.query.sort));
    to.row_written();
  }
  if (r.other) line("[other]", r.other->value(r.query.sort));
  if (r.rows.empty() && !r.other) line("", r.totals.value(r.query.sort));
}

}  // namespace heapql
