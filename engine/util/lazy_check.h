// A check that runs when what it checks is first used, once: the first
// caller runs it, callers at the same time wait for it, later ones return at
// once. A check that threw runs again the next time (and throws again).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace heapql {

class LazyCheck {
 public:
  LazyCheck() = default;
  explicit LazyCheck(std::function<void()> check) : check_(std::move(check)) {}

  void run() const { run_as(check_); }
  // run(), by `alike` if the check runs now: the same check made another
  // way (the same file read by copies instead of in place).
  void run_as(const std::function<void()>& alike) const {
    if (!pending()) return;
    // A mutex, not std::call_once: after a call that threw, libstdc++'s
    // call_once on MinGW's threads never returns to the next caller (GCC
    // bug 66146), so a second query on a damaged store hung there.
    const std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->passed.load(std::memory_order_acquire)) return;
    (alike ? alike : check_)();
    state_->passed.store(true, std::memory_order_release);
  }
  // Whether run() would do anything.
  bool pending() const { return check_ && !state_->passed.load(std::memory_order_acquire); }

 private:
  struct State {
    std::mutex mutex;
    std::atomic<bool> passed{false};
  };
  std::function<void()> check_;
  std::unique_ptr<State> state_ = std::make_unique<State>();
};

}  // namespace heapql
