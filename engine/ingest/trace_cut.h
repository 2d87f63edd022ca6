// What every reader does with a trace that ends early (a recording killed
// along with its program, a file copied while it was written): it answers from
// the complete part and says so plainly, or, with --strict, refuses it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/store/source_info.h"

namespace heapql {

// "FILE: the trace ends early: WHAT at byte N, M bytes left over; the
// answers cover 0s..END, what was recorded before the cut" (no prefix, no
// newline).
std::string describe_cut(const TraceCut& cut, std::int64_t end_ns);

// strict: throws heapql::Error at the cut. Otherwise the warning goes to
// `warnings` (when not null) or to stderr as "heapql: warning: ...".
void report_cut(const TraceCut& cut, std::int64_t end_ns, bool strict, std::string* warnings);

}  // namespace heapql
