#include "lua/host/run_limits.h"

#include <fmt/format.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <limits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#ifndef _WIN32
#include "engine/stderr_in_signal.h"
#endif
#include "engine/units.h"
#include "engine/warnings.h"

namespace heapql::lua {

namespace {

// How long the watchdog leaves the hook to end a run that is in Lua code
// (with a traceback) before it ends the run itself.
constexpr auto kHookGrace = std::chrono::milliseconds(50);
// Instructions between two looks at the deadline flag.
constexpr int kInstructionsBetweenChecks = 1000;

std::atomic<std::int64_t> g_net_bytes{0};
std::int64_t g_cap_bytes = 0;  // written before g_counting_allocations is set
std::atomic<bool> g_deadline_passed{false};
std::atomic<bool> g_ending{false};
char g_memory_message[512];
char g_timeout_message[512];
char g_stderr_message[512];
std::atomic<bool> g_run_armed{false};
std::atomic<std::size_t> g_stderr_bytes{0};  // print, and the engine's warnings (any thread)

// The first caller ends the process; any other waits for it to.
bool claim_ending() {
  if (!g_ending.exchange(true)) {
    g_counting_allocations.store(false);  // nothing counted from here on
    return true;
  }
#ifdef _WIN32
  for (;;) Sleep(INFINITE);
#else
  for (;;) ::pause();
#endif
}

[[noreturn]] void end_run(const char* message) {
  // No stdio flush: another thread may hold a stream's lock. The report is
  // a buffer, never written by a run that fails; stderr is unbuffered.
#ifdef _WIN32
  // WriteFile, not the C library's write (which locks its descriptor), and
  // TerminateProcess, not ExitProcess (which would run DLL detach code that
  // may wait for a lock a stopped thread holds): Linux's write and _exit.
  DWORD written = 0;
  WriteFile(GetStdHandle(STD_ERROR_HANDLE), message, static_cast<DWORD>(std::strlen(message)), &written, nullptr);
  TerminateProcess(GetCurrentProcess(), 3);
  for (;;) Sleep(INFINITE);
#else
  write_stderr_in_signal(message, std::strlen(message));
  ::_exit(3);
#endif
}

// Ends the run from Lua code once the deadline has passed, saying where the
// recipe was. Nothing here allocates or can raise: the message is built in a
// fixed buffer from lua_getinfo, which reads what is there.
void deadline_hook(lua_State* L, lua_Debug*) {
  if (!g_deadline_passed.load(std::memory_order_relaxed)) return;
  claim_ending();
  char message[2048];
  std::size_t length = std::strlen(g_timeout_message);
  std::memcpy(message, g_timeout_message, length);
  lua_Debug ar;
  for (int level = 0, shown = 0; shown < 8 && lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0) continue;
    const int n = std::snprintf(message + length, sizeof message - length, "  at %s:%d\n", ar.short_src,
                                ar.currentline);
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof message - length) break;
    length += static_cast<std::size_t>(n);
    ++shown;
  }
  message[length] = '\0';
  end_run(message);
}

class Watchdog {
 public:
  explicit Watchdog(std::chrono::milliseconds timeout)
      : deadline_(std::chrono::steady_clock::now() + timeout), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    woken_.notify_all();
    thread_.join();
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    if (woken_.wait_until(lock, deadline_, [this] { return stopped_; })) return;
    g_deadline_passed.store(true);
    if (woken_.wait_for(lock, kHookGrace, [this] { return stopped_; })) return;
    claim_ending();
    end_run(g_timeout_message);
  }

  std::chrono::steady_clock::time_point deadline_;
  std::mutex mutex_;
  std::condition_variable woken_;
  bool stopped_ = false;
  std::thread thread_;
};

Watchdog* g_watchdog = nullptr;

}  // namespace

std::atomic<bool> g_counting_allocations{false};

std::string describe_timeout(std::chrono::milliseconds timeout) {
  return format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
}

std::string describe_memory(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (std::size_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return format_bytes_human(bytes);
}

RunGuard::RunGuard(const Limits& limits, const std::string& prefix) {
  std::snprintf(g_memory_message, sizeof g_memory_message,
                "%sthe recipe used more than its memory limit of %s (--memory): Lua and the engine together\n",
                prefix.c_str(), describe_memory(limits.memory_bytes).c_str());
  std::snprintf(g_timeout_message, sizeof g_timeout_message,
                "%sthe recipe ran longer than its time limit of %s (--timeout)\n", prefix.c_str(),
                describe_timeout(limits.timeout).c_str());
  std::snprintf(g_stderr_message, sizeof g_stderr_message,
                "%sthe recipe printed more than %s to stderr (print), heapql's limit\n", prefix.c_str(),
                describe_memory(kMostStderrBytes).c_str());
  g_stderr_bytes.store(0);
  set_stderr_meter(count_stderr_output);
  g_run_armed.store(true);
  g_deadline_passed.store(false);
  g_net_bytes.store(0);
  g_cap_bytes = static_cast<std::int64_t>(
      std::min<std::size_t>(limits.memory_bytes, static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())));
  if (limits.timeout.count() > 0) g_watchdog = new Watchdog(limits.timeout);
  g_counting_allocations.store(limits.memory_bytes > 0);
}

RunGuard::~RunGuard() {
  g_run_armed.store(false);
  g_counting_allocations.store(false);
  delete g_watchdog;
  g_watchdog = nullptr;
}

void RunGuard::watch(lua_State* L) { lua_sethook(L, deadline_hook, LUA_MASKCOUNT, kInstructionsBetweenChecks); }

bool RunGuard::memory_pressure() {
  return g_counting_allocations.load(std::memory_order_relaxed) && g_net_bytes.load(std::memory_order_relaxed) > g_cap_bytes / 2;
}

void count_stderr_output(std::size_t bytes) {
  if (!g_run_armed.load(std::memory_order_relaxed)) return;
  if (g_stderr_bytes.fetch_add(bytes) + bytes > kMostStderrBytes) {
    claim_ending();
    end_run(g_stderr_message);
  }
}

void count_allocation(std::int64_t delta_bytes) {
  if (!counting_allocations()) return;
  const std::int64_t now = g_net_bytes.fetch_add(delta_bytes, std::memory_order_relaxed) + delta_bytes;
  if (delta_bytes > 0 && now > g_cap_bytes) {
    claim_ending();
    end_run(g_memory_message);
  }
}

}  // namespace heapql::lua
