// Work split in two known halves, one on a helper thread and one on the
// calling thread: how the store uses the machine's second core (checksums
// beside decoding, the frees before a window beside its allocations, the
// late temporary frees beside the window's replay, a query's roll-up over
// millions of buckets). A fixed split of two needs no pool.
#pragma once

#include <cstddef>
#include <exception>
#include <thread>

namespace heapql {

// Runs `beside` on a helper thread while `here` runs on this one, and
// returns once both have ended. An exception from either is rethrown then,
// `beside`'s first: callers put there the check whose error explains the
// other's (a damaged section explains why decoding it failed).
template <class Beside, class Here>
void on_both_cores(Beside&& beside, Here&& here) {
  std::exception_ptr beside_error, here_error;
  {
    std::jthread helper([&] {
      try {
        beside();
      } catch (...) {
        beside_error = std::current_exception();
      }
    });
    try {
      here();
    } catch (...) {
      here_error = std::current_exception();
    }
  }
  if (beside_error) std::rethrow_exception(beside_error);
  if (here_error) std::rethrow_exception(here_error);
}

// Runs `f(begin, end)` over [0, n) split in two halves, the upper one
// beside, or over all of it here when n is below `min_split` (a thread costs
// more than a short loop). `f` must only write what its range owns.
template <class F>
void in_two_halves(std::size_t n, std::size_t min_split, F&& f) {
  if (n < min_split) return f(std::size_t{0}, n);
  const std::size_t half = n / 2;
  on_both_cores([&] { f(half, n); }, [&] { f(std::size_t{0}, half); });
}

}  // namespace heapql
