// A hint that the memory at `p` is read soon, for the tables read at random.
//
// Always through this, not __builtin_prefetch itself: GCC counts the builtin
// as free of side effects, so a function whose only work is a prefetch is
// taken as pure, and a call to it (its result unused) is deleted before the
// inliner sees it. The batch driver's hints, given through the tables'
// prefetch() functions, were all deleted so: none was in the binary. The
// empty asm statement is a side effect the compiler has to keep, and with it
// each function that gives a hint.
#pragma once

namespace heapql {

inline void prefetch_hint(const void* p) {
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
}

}  // namespace heapql
