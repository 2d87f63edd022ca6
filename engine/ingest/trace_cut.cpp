#include "engine/ingest/trace_cut.h"

#include <fmt/format.h>

#include <cstdio>

#include "engine/error.h"
#include "engine/units.h"
#include "engine/warnings.h"

namespace heapql {

std::string describe_cut(const TraceCut& cut, std::int64_t end_ns) {
  return fmt::format("{}: the trace ends early: {} at byte {}, {} byte{} left over; the answers cover 0s..{}, what "
                     "was recorded before the cut",
                     cut.file, cut.what, cut.at_byte, cut.left_over_bytes, cut.left_over_bytes == 1 ? "" : "s",
                     format_duration(end_ns));
}

void report_cut(const TraceCut& cut, std::int64_t end_ns, bool strict, std::string* warnings) {
  if (strict) {
    throw Error(SourceLocation{cut.file, {}, {}, cut.at_byte},
                fmt::format("the trace ends early: {} ({} bytes left over); --strict refuses a trace cut short",
                            cut.what, cut.left_over_bytes));
  }
  emit_warning(warnings, describe_cut(cut, end_ns) + "\n");
}

}  // namespace heapql
