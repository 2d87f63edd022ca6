#include "cli/serve/forked_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "engine/error.h"
#include "cli/dispatch.h"
#include "lua/host/run_limits.h"

namespace heapql::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kGrace = std::chrono::seconds(1);  // for the child's own limit message first
constexpr auto kPollEvery = std::chrono::milliseconds(20);  // how soon a cancel is seen
constexpr std::size_t kMostStderrKept = std::size_t{1} << 20;

std::atomic<bool> g_ending_every_worker{false};

// The child: the command line on `words`, printing into the pipes; never returns.
[[noreturn]] void become_worker(const std::vector<std::string>& words, int out_fd, int err_fd, int status_fd,
                                bool arm_limits, const WorkerLimits& limits, const std::string& prefix,
                                lua::CommandDefinitions& definitions) {
  // The server blocks its stop signals for its signal thread and ignores SIGPIPE;
  // a command expects neither.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  if (::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0 || ::dup2(status_fd, 3) < 0) ::_exit(127);
  // Nothing else of the server's: its listening socket and connections, the
  // other workers' pipes (the mapped stores need no descriptor).
  ::close_range(4, ~0U, 0);
  int code = 0;
  {
    std::optional<lua::RunGuard> guard;
    if (arm_limits) guard.emplace(lua::Limits{limits.timeout, limits.memory_bytes}, prefix);
    code = run_command_line(words, &definitions);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // The exit code, then every pipe closed: the server answers now, not after
  // the kernel has torn down this copy of its address space (milliseconds on a
  // large trace; it reaps this process later).
  const unsigned char status = static_cast<unsigned char>(code);
  if (::write(3, &status, 1) == 1) {
    ::close(STDOUT_FILENO);
    ::close(STDERR_FILENO);
    ::close(3);
  }
  ::_exit(code);
}

// Reads what is there on `fd` into `into` (at most `cap` kept); false at its end.
bool drain(int fd, std::string& into, std::size_t cap) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const std::size_t room = into.size() < cap ? cap - into.size() : 0;
  into.append(buffer, std::min(room, static_cast<std::size_t>(n)));
  return true;
}

}  // namespace

void end_every_worker() { g_ending_every_worker.store(true); }

ForkedWorkers::~ForkedWorkers() {
  const std::lock_guard lock(exiting_mutex_);
  for (const pid_t pid : exiting_) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

void ForkedWorkers::reap_exited_workers() {
  const std::lock_guard lock(exiting_mutex_);
  std::erase_if(exiting_, [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; });
}

WorkerOutcome ForkedWorkers::run(const std::vector<std::string>& words, bool arm_limits, const std::string& prefix,
                                 const std::atomic<bool>& cancelled) {
  {
    std::unique_lock lock(mutex_);
    while (running_ >= limits_.jobs || g_ending_every_worker.load()) {
      if (cancelled.load() || g_ending_every_worker.load()) {
        WorkerOutcome outcome;
        outcome.end = cancelled.load() ? WorkerOutcome::End::kCancelled : WorkerOutcome::End::kStopping;
        return outcome;
      }
      slot_freed_.wait_for(lock, kPollEvery);
    }
    ++running_;
  }
  struct Slot {
    ForkedWorkers& workers;
    ~Slot() {
      {
        const std::lock_guard lock(workers.mutex_);
        --workers.running_;
      }
      workers.slot_freed_.notify_one();
    }
  } slot{*this};
  return run_child(words, arm_limits, prefix, cancelled);
}

WorkerOutcome ForkedWorkers::run_child(const std::vector<std::string>& words, bool arm_limits,
                                       const std::string& prefix, const std::atomic<bool>& cancelled) {
  reap_exited_workers();
  int out[2] = {-1, -1}, err[2] = {-1, -1}, status_pipe[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1], status_pipe[0], status_pipe[1]}) {
      if (fd >= 0) ::close(fd);
    }
    throw Error("heapql serve: pipe: " + why);
  }
  const Clock::time_point start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) become_worker(words, out[1], err[1], status_pipe[1], arm_limits, limits_, prefix, definitions_);
  for (int fd : {out[1], err[1], status_pipe[1]}) ::close(fd);
  if (pid < 0) {
    for (int fd : {out[0], err[0], status_pipe[0]}) ::close(fd);
    throw Error(std::string("heapql serve: fork: ") + std::strerror(errno));
  }
  WorkerOutcome outcome;
  std::optional<WorkerOutcome::End> killed;
  std::optional<int> reported_code;  // what the child wrote before closing its pipes
  std::string status_byte;
  pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {status_pipe[0], POLLIN, 0}};
  bool out_open = true, err_open = true, status_open = true;
  const std::size_t out_cap = limits_.memory_bytes > 0 ? limits_.memory_bytes + 1 : static_cast<std::size_t>(-1);
  while ((out_open || err_open || status_open) && !killed) {
    fds[0].fd = out_open ? out[0] : -1;
    fds[1].fd = err_open ? err[0] : -1;
    fds[2].fd = status_open ? status_pipe[0] : -1;
    const int ready = ::poll(fds, 3, static_cast<int>(kPollEvery.count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) out_open = drain(out[0], outcome.out, out_cap);
      if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        err_open = drain(err[0], outcome.err, kMostStderrKept);
      }
      if (status_open && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
        status_open = drain(status_pipe[0], status_byte, 1);
      }
    }
    if (limits_.memory_bytes > 0 && outcome.out.size() > limits_.memory_bytes) {
      killed = WorkerOutcome::End::kTooLarge;
    } else if (cancelled.load()) {
      killed = WorkerOutcome::End::kCancelled;
    } else if (g_ending_every_worker.load()) {
      killed = WorkerOutcome::End::kStopping;
    } else if (limits_.timeout.count() > 0 && Clock::now() - start > limits_.timeout + kGrace) {
      killed = WorkerOutcome::End::kTimedOut;
    }
  }
  for (int fd : {out[0], err[0], status_pipe[0]}) ::close(fd);
  if (!killed && status_byte.size() == 1) reported_code = static_cast<unsigned char>(status_byte[0]);
  if (reported_code) {
    // Done: its exit is the kernel's work now, reaped by a later request.
    outcome.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    outcome.exit_code = *reported_code;
    const std::lock_guard lock(exiting_mutex_);
    exiting_.push_back(pid);
    return outcome;
  }
  if (killed) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (killed) {
    outcome.end = *killed;
  } else if (WIFSIGNALED(status)) {
    outcome.end = WorkerOutcome::End::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

}  // namespace heapql::cli
