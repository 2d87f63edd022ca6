#include "lua/host/recipe_stack.h"

#ifdef _WIN32
#include <windows.h>
#include <process.h>
#else
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

namespace heapql::lua {

#ifndef _WIN32

namespace {

constexpr std::size_t kStackBytes = std::size_t{1} << 30;
// HEAPQL_RECIPE_STACK (bytes) overrides the size: the tests use a small one
// to see an overflow ended cleanly.
constexpr const char* kStackVariable = "HEAPQL_RECIPE_STACK";
constexpr std::size_t kGuardBytes = std::size_t{1} << 20;
constexpr std::size_t kSignalStackBytes = std::size_t{256} << 10;

// The recipe thread's stack, for the fault handler (one run at a time).
std::uintptr_t g_stack_low = 0;
std::uintptr_t g_stack_high = 0;
char g_overflow_message[512];
struct sigaction g_previous_segv;
struct sigaction g_previous_bus;

void on_fault(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  // A fault in the guard below the stack (or at its very bottom) is the
  // recipe's recursion running out of stack; anything else is not ours.
  if (g_stack_low != 0 && address + kGuardBytes >= g_stack_low && address < g_stack_low + 65536) {
    const std::size_t length = std::strlen(g_overflow_message);
    if (::write(STDERR_FILENO, g_overflow_message, length) < 0) {
      // Nothing more to say: the exit code tells.
    }
    ::_exit(3);
  }
  // Not an overflow: let the handler that was there before (the default, or
  // a sanitizer's) see the fault when the instruction runs again.
  sigaction(signal, signal == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
  (void)context;
}

struct Job {
  const std::function<void()>* body;
  std::exception_ptr error;
};

void* run_job(void* argument) {
  auto* job = static_cast<Job*>(argument);
  std::vector<char> signal_stack(kSignalStackBytes);
  stack_t alternate{};
  alternate.ss_sp = signal_stack.data();
  alternate.ss_size = signal_stack.size();
  sigaltstack(&alternate, nullptr);
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
    void* low = nullptr;
    std::size_t size = 0;
    pthread_attr_getstack(&attributes, &low, &size);
    pthread_attr_destroy(&attributes);
    g_stack_low = reinterpret_cast<std::uintptr_t>(low);
    g_stack_high = g_stack_low + size;
  }
  try {
    (*job->body)();
  } catch (...) {
    job->error = std::current_exception();
  }
  g_stack_low = g_stack_high = 0;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
  return nullptr;
}

}  // namespace

void run_on_recipe_stack(const std::function<void()>& body, const std::string& prefix) {
  std::snprintf(g_overflow_message, sizeof g_overflow_message,
                "%sthe recipe ran out of stack: recursion too deep inside Lua's or LPeg's C code\n", prefix.c_str());
  struct sigaction handler{};
  handler.sa_sigaction = on_fault;
  handler.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGSEGV, &handler, &g_previous_segv);
  sigaction(SIGBUS, &handler, &g_previous_bus);

  Job job{&body, nullptr};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  std::size_t stack_bytes = kStackBytes;
  if (const char* text = std::getenv(kStackVariable); text != nullptr && *text != '\0') {
    stack_bytes = std::max<std::size_t>(std::strtoull(text, nullptr, 10), PTHREAD_STACK_MIN + kSignalStackBytes);
  }
  pthread_attr_setstacksize(&attributes, stack_bytes);
  pthread_attr_setguardsize(&attributes, kGuardBytes);
  pthread_t thread;
  const int failed = pthread_create(&thread, &attributes, run_job, &job);
  pthread_attr_destroy(&attributes);
  if (failed != 0) {
    run_job(&job);  // no thread to be had: the caller's stack, as before
  } else {
    pthread_join(thread, nullptr);
  }
  sigaction(SIGSEGV, &g_previous_segv, nullptr);
  sigaction(SIGBUS, &g_previous_bus, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

#else  // _WIN32: a thread whose stack is reserved, not committed; the overflow caught by a vectored handler

namespace {

constexpr std::size_t kStackBytes = std::size_t{1} << 30;
constexpr const char* kStackVariable = "HEAPQL_RECIPE_STACK";
// What the overflow handler may still use of the exhausted stack
// (SetThreadStackGuarantee), and the smallest stack HEAPQL_RECIPE_STACK gives.
constexpr ULONG kHandlerStackBytes = 64u << 10;
constexpr std::size_t kLeastStackBytes = std::size_t{256} << 10;

DWORD g_recipe_thread = 0;  // one run at a time
char g_overflow_message[512];

// EXCEPTION_STACK_OVERFLOW on the recipe thread is the recipe's recursion
// running out of stack: the message, and exit 3 at once (as _exit after
// SIGSEGV on Linux). Anything else is not ours.
LONG CALLBACK on_exception(EXCEPTION_POINTERS* info) {
  if (info->ExceptionRecord->ExceptionCode != EXCEPTION_STACK_OVERFLOW || GetCurrentThreadId() != g_recipe_thread) {
    return EXCEPTION_CONTINUE_SEARCH;
  }
  DWORD written = 0;
  WriteFile(GetStdHandle(STD_ERROR_HANDLE), g_overflow_message, static_cast<DWORD>(std::strlen(g_overflow_message)),
            &written, nullptr);
  TerminateProcess(GetCurrentProcess(), 3);
  return EXCEPTION_CONTINUE_SEARCH;
}

struct Job {
  const std::function<void()>* body;
  std::exception_ptr error;
};

unsigned __stdcall run_job(void* argument) {
  auto* job = static_cast<Job*>(argument);
  ULONG guarantee = kHandlerStackBytes;
  SetThreadStackGuarantee(&guarantee);
  g_recipe_thread = GetCurrentThreadId();
  try {
    (*job->body)();
  } catch (...) {
    job->error = std::current_exception();
  }
  g_recipe_thread = 0;
  return 0;
}

}  // namespace

void run_on_recipe_stack(const std::function<void()>& body, const std::string& prefix) {
  std::snprintf(g_overflow_message, sizeof g_overflow_message,
                "%sthe recipe ran out of stack: recursion too deep inside Lua's or LPeg's C code\n", prefix.c_str());
  std::size_t stack_bytes = kStackBytes;
  if (const char* text = std::getenv(kStackVariable); text != nullptr && *text != '\0') {
    stack_bytes = std::max<std::size_t>(std::strtoull(text, nullptr, 10), kLeastStackBytes);
  }
  void* const handler = AddVectoredExceptionHandler(1, on_exception);
  Job job{&body, nullptr};
  // Reserved, not committed: the 1 GiB costs address space, and memory only as it is used.
  const auto thread = reinterpret_cast<HANDLE>(
      _beginthreadex(nullptr, static_cast<unsigned>(std::min<std::size_t>(stack_bytes, UINT_MAX)), run_job, &job,
                     STACK_SIZE_PARAM_IS_A_RESERVATION, nullptr));
  if (thread == nullptr) {
    run_job(&job);  // no thread to be had: the caller's stack
  } else {
    WaitForSingleObject(thread, INFINITE);
    CloseHandle(thread);
  }
  if (handler != nullptr) RemoveVectoredExceptionHandler(handler);
  if (job.error) std::rethrow_exception(job.error);
}

#endif  // _WIN32

}  // namespace heapql::lua
