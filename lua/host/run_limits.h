// The limits a recipe runs under, held for the whole run, from the state's
// creation to lua_close: a wall-clock deadline (engine calls, C functions,
// finalizers, __close and error handlers included) kept by a watchdog
// thread, and a cap on every byte allocated meanwhile — Lua's allocator and,
// in the heapql executable, every operator new (results, copies, opened
// traces' stores, the report buffer, reader threads). Going over either ends
// the process at once with exit 3 and a message naming the limit: nothing
// unwinds through recipe code, so no pcall, finalizer or error handler can
// hold it off. One run at a time per process.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <lua.hpp>

namespace heapql::lua {

struct Limits {
  std::chrono::milliseconds timeout{60'000};        // 0: none
  std::size_t memory_bytes = std::size_t{4} << 30;  // 0: none
};

std::string describe_timeout(std::chrono::milliseconds timeout);
std::string describe_memory(std::size_t bytes);

// Arms the limits on construction and disarms them on destruction.
// `prefix` starts the message printed when a limit ends the run
// ("heapql run: ").
class RunGuard {
 public:
  RunGuard(const Limits& limits, const std::string& prefix);
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  // Installs the hook that ends the run, with the recipe's Lua traceback,
  // once the deadline has passed and Lua code runs (the watchdog ends it
  // anyway shortly after, wherever it is).
  static void watch(lua_State* L);

  // Whether what the run allocated so far is over half its memory cap (the
  // host then collects Lua's garbage, which may hold engine objects).
  static bool memory_pressure();
};

// What a run's `print` may write to stderr, in all (docs/recipes.md): a
// recipe's notes, not a stream to fill a CI log or a disk with.
constexpr std::size_t kMostStderrBytes = std::size_t{16} << 20;

// Counts `bytes` a run's recipe is about to write to stderr; past
// kMostStderrBytes ends the run (exit 3) as the other limits do. Outside a
// run (stock Lua) it counts nothing.
void count_stderr_output(std::size_t bytes);

// Whether a run's memory cap is armed: allocators ask before they measure.
extern std::atomic<bool> g_counting_allocations;
inline bool counting_allocations() { return g_counting_allocations.load(std::memory_order_relaxed); }

// Every allocation's change in bytes, from the counting operator new and
// Lua's allocator, while a run is armed.
void count_allocation(std::int64_t delta_bytes);

}  // namespace heapql::lua
