// A worker: one forked child per API request that runs a command (docs/serve.md,
// "Workers"). The child is the command line itself (cli/dispatch.h) on the
// request's words, its stdout and stderr piped to the server, under the
// request limits; it inherits the traces the server opened (the session
// registry, engine/session/open_sessions.h), so it reads nothing again. Its
// answer is what it printed; a limit, a crash or a cancel ends the child,
// never the server. At most `jobs` run at once; more wait in line.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "lua/host/command_definitions.h"

namespace heapql::cli {

struct WorkerLimits {
  std::chrono::milliseconds timeout{60'000};  // a request's wall time; 0: none
  std::size_t memory_bytes = std::size_t{4} << 30;  // what it allocates, and its answer's size
  int jobs = 2;
};

struct WorkerOutcome {
  enum class End {
    kExited,     // by itself: exit_code says how
    kSignaled,   // died of `signal`
    kTimedOut,   // still running past the timeout and its grace: killed
    kCancelled,  // superseded while waiting or running: killed
    kTooLarge,   // printed more than the memory limit: killed
    kStopping,   // the server is stopping (end_every_worker): killed
  };
  End end = End::kExited;
  int exit_code = 0;
  int signal = 0;
  std::string out;  // its standard output, whole
  std::string err;  // its standard error (the first MiB)
  double wall_ms = 0;  // fork to its answer (its exit code written, or its end)
};

// Kills every worker running or waiting, in every ForkedWorkers, and every
// one started later: the server is stopping, and its connections' threads
// must end soon (they are joined). Safe from any thread.
void end_every_worker();

class ForkedWorkers {
 public:
  // `definitions`: the command line's, loaded once before any worker runs
  // and never used by the server after; each child runs with its own copy.
  ForkedWorkers(WorkerLimits limits, lua::CommandDefinitions& definitions)
      : limits_(limits), definitions_(definitions) {}
  // Reaps the children still exiting.
  ~ForkedWorkers();
  ForkedWorkers(const ForkedWorkers&) = delete;
  ForkedWorkers& operator=(const ForkedWorkers&) = delete;

  // Runs `words` (the command line after `heapql`) in a child, once a job
  // slot is free. `arm_limits`: the child arms the run limits
  // (lua/host/run_limits.h) around the command, with `prefix` starting
  // their message; false for a command that arms them from its own
  // --timeout and --memory. The parent kills the child once `cancelled` is
  // set, past the timeout plus a second's grace, or past the memory limit
  // of output.
  WorkerOutcome run(const std::vector<std::string>& words, bool arm_limits, const std::string& prefix,
                    const std::atomic<bool>& cancelled);

  const WorkerLimits& limits() const { return limits_; }

 private:
  WorkerOutcome run_child(const std::vector<std::string>& words, bool arm_limits, const std::string& prefix,
                          const std::atomic<bool>& cancelled);

  // Reaps (without waiting) the children that reported their exit code and
  // were left to exit.
  void reap_exited_workers();

  WorkerLimits limits_;
  lua::CommandDefinitions& definitions_;
  std::mutex exiting_mutex_;
  std::vector<pid_t> exiting_;
  std::mutex mutex_;
  std::condition_variable slot_freed_;
  int running_ = 0;
};

}  // namespace heapql::cli
