// Work split in two known halves, one on a helper thread and one on the
// calling thread: how the store uses the machine's second core (checksums
// beside decoding, the frees before a window beside its allocations, the
// late temporary frees beside the window's replay). A fixed split of two
// needs no pool.
#pragma once

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

}  // namespace heapql
