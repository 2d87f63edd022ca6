// The processes heapql starts on Linux (`heapql record`: the program,
// heaptrack_interpret, gdb; `heapql top` and `serve --record`: heapql itself,
// cli/recording_child.h), and how a Ctrl-C at the terminal reaches them.
#pragma once
#ifndef _WIN32

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace heapql::cli {

// While the recorded program runs, a Ctrl-C (SIGINT, or SIGQUIT) at the
// terminal is the user ending the program, which gets it from the terminal
// itself: heapql waits it out and goes on to finish the store of what was
// recorded, as `time` or `perf record` do. The programs it starts get the
// dispositions heapql had.
class InterruptsEndTheProgram {
 public:
  InterruptsEndTheProgram();
  ~InterruptsEndTheProgram();
  InterruptsEndTheProgram(const InterruptsEndTheProgram&) = delete;
  InterruptsEndTheProgram& operator=(const InterruptsEndTheProgram&) = delete;

  // In a forked child, before exec: heapql's own dispositions back.
  static void restore_in_child();

 private:
  static inline InterruptsEndTheProgram* current_ = nullptr;
  struct sigaction saved_int_ {};
  struct sigaction saved_quit_ {};
};

struct ChildSetup {
  int in = -1;   // its stdin; -1: this process's
  int out = -1;  // its stdout; -1: this process's
  int err = -1;  // its stderr; -1: this process's
  // A process group of its own: a Ctrl-C at the terminal does not reach it
  // (heaptrack_interpret must outlive the program it interprets).
  bool own_group = false;
  // NAME=VALUE pairs set in its environment.
  std::vector<std::pair<std::string, std::string>> environment;
};

// Starts argv (found on PATH); -1 when it could not fork. A program that
// cannot be run exits 127. The descriptors heapql opens are close-on-exec.
// The child starts with no signal blocked (`heapql serve` blocks its stop
// signals in every thread).
pid_t start_child(const std::vector<std::string>& argv, const ChildSetup& setup = {});

// The exit status of a started child (128+signal when killed), -1 when it
// could not start.
int wait_child(pid_t pid);

// Whether a started child has ended; its exit status in `status` then.
bool child_ended(pid_t pid, int& status);

// Runs argv to its end; its stdout and stderr together, and its exit status.
std::pair<int, std::string> run_capturing(const std::vector<std::string>& argv);

// The same, its stdout and stderr apart.
struct CapturedRun {
  int exit_code = -1;
  std::string out, err;
};
CapturedRun run_capturing_apart(const std::vector<std::string>& argv);

// argv running this heapql binary again with `arguments`. Throws Error when
// the system does not say where it is.
std::vector<std::string> this_heapql(const std::vector<std::string>& arguments);

}  // namespace heapql::cli

#endif  // _WIN32
