#include "engine/binary_file/mapping_fault.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <unistd.h>
#endif

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/stderr_in_signal.h"

namespace heapql::store_file {

namespace {

// What the handler may read: plain words and a message made beforehand.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::string message;  // written before `end` is set, read only while it is
};

constexpr std::size_t kSlots = 32;  // mapped stores at once: a diff maps two
std::array<Slot, kSlots> slots;
// The registered mapping holding `address`, or nullptr.
const Slot* slot_holding(std::uintptr_t address) {
  for (const Slot& slot : slots) {
    const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (end != 0 && address >= slot.begin.load(std::memory_order_relaxed) && address < end) return &slot;
  }
  return nullptr;
}

#ifdef _WIN32

// Windows raises EXCEPTION_IN_PAGE_ERROR when a view's page cannot be read
// in (the file shrank on a share, the medium went away); Wine raises
// EXCEPTION_ACCESS_VIOLATION for a read past the end of a truncated file
// (its mmap's SIGBUS, measured). heapql's views are read-only and only read,
// so a read fault inside one is the file's doing either way. The process
// ends here: unwinding out of a fault in the middle of a read is not safe.
LONG CALLBACK on_page_fault(EXCEPTION_POINTERS* pointers) {
  const EXCEPTION_RECORD& record = *pointers->ExceptionRecord;
  const bool page_error = record.ExceptionCode == EXCEPTION_IN_PAGE_ERROR;
  const bool read_fault = record.ExceptionCode == EXCEPTION_ACCESS_VIOLATION && record.ExceptionInformation[0] == 0;
  if ((!page_error && !read_fault) || record.NumberParameters < 2) return EXCEPTION_CONTINUE_SEARCH;
  const Slot* slot = slot_holding(static_cast<std::uintptr_t>(record.ExceptionInformation[1]));
  if (slot == nullptr) return EXCEPTION_CONTINUE_SEARCH;
  write_stderr_in_signal(slot->message.data(), slot->message.size());
  ::TerminateProcess(::GetCurrentProcess(), 2);
  return EXCEPTION_CONTINUE_SEARCH;  // not reached
}

void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::AddVectoredExceptionHandler(1, on_page_fault); });
}

#else

struct sigaction previous_action {};

void on_bus_error(int signal, siginfo_t* info, void* context) {
  if (const Slot* slot = slot_holding(reinterpret_cast<std::uintptr_t>(info->si_addr))) {
    write_stderr_in_signal(slot->message.data(), slot->message.size());
    ::_exit(2);
  }
  // Not ours: the handler before ours, or the default action (pending until
  // this returns).
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN &&
      previous_action.sa_handler != nullptr) {
    previous_action.sa_handler(signal);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_action);
  });
}

#endif

}  // namespace

MappingFaultGuard::MappingFaultGuard(const void* address, std::size_t length, const std::string& path) {
  if (address == nullptr || length == 0) return;
  install_handler_once();
  for (std::size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!slots[i].used.compare_exchange_strong(expected, true)) continue;
    Slot& slot = slots[i];
    slot.message = "heapql: " + path +
                   ": the file shrank while heapql read it (another program truncated or rewrote it in place); "
                   "run the command again\n";
    const auto begin = reinterpret_cast<std::uintptr_t>(address);
    slot.begin.store(begin, std::memory_order_relaxed);
    slot.end.store(begin + length, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

MappingFaultGuard::~MappingFaultGuard() {
  if (slot_ < 0) return;
  Slot& slot = slots[static_cast<std::size_t>(slot_)];
  slot.end.store(0, std::memory_order_release);
  slot.begin.store(0, std::memory_order_relaxed);
  slot.used.store(false, std::memory_order_release);
}

}  // namespace heapql::store_file
