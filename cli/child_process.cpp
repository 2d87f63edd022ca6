#ifndef _WIN32
#include "cli/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/error.h"
#include "engine/platform/program_path.h"

extern char** environ;

namespace heapql::cli {

InterruptsEndTheProgram::InterruptsEndTheProgram() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &saved_int_);
  ::sigaction(SIGQUIT, &ignore, &saved_quit_);
  current_ = this;
}

InterruptsEndTheProgram::~InterruptsEndTheProgram() {
  current_ = nullptr;
  ::sigaction(SIGINT, &saved_int_, nullptr);
  ::sigaction(SIGQUIT, &saved_quit_, nullptr);
}

void InterruptsEndTheProgram::restore_in_child() {
  if (current_ == nullptr) return;
  ::sigaction(SIGINT, &current_->saved_int_, nullptr);
  ::sigaction(SIGQUIT, &current_->saved_quit_, nullptr);
}

pid_t start_child(const std::vector<std::string>& argv, const ChildSetup& setup) {
  // Everything the child needs is made before the fork: other threads run,
  // and the child calls nothing that allocates before exec.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> settings;
  for (const auto& [name, value] : setup.environment) settings.push_back(name + "=" + value);
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    bool replaced = false;
    for (const auto& [name, value] : setup.environment) {
      replaced = replaced || (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=');
    }
    if (!replaced) env.push_back(*e);
  }
  for (std::string& s : settings) env.push_back(s.data());
  env.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    InterruptsEndTheProgram::restore_in_child();
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);  // heapql ignores it while it forwards streams
    if (setup.own_group) ::setpgid(0, 0);
    if (setup.in >= 0) ::dup2(setup.in, STDIN_FILENO);
    if (setup.out >= 0) ::dup2(setup.out, STDOUT_FILENO);
    if (setup.err >= 0) ::dup2(setup.err, STDERR_FILENO);
    ::execvpe(args[0], args.data(), env.data());
    ::_exit(127);
  }
  return pid;
}

namespace {

// waitpid's status as a shell says it: 128+signal when killed.
int exit_status(int waited) { return WIFSIGNALED(waited) ? 128 + WTERMSIG(waited) : WEXITSTATUS(waited); }

}  // namespace

int wait_child(pid_t pid) {
  int status = 0;
  if (pid < 0) return -1;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return exit_status(status);
}

bool child_ended(pid_t pid, int& status) {
  int raw = 0;
  if (pid <= 0 || ::waitpid(pid, &raw, WNOHANG) != pid) return false;
  status = exit_status(raw);
  return true;
}

std::pair<int, std::string> run_capturing(const std::vector<std::string>& argv) {
  int out[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0) return {-1, {}};
  ChildSetup setup;
  setup.out = setup.err = out[1];
  const pid_t pid = start_child(argv, setup);
  ::close(out[1]);
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(out[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(out[0]);
  return {wait_child(pid), text};
}

CapturedRun run_capturing_apart(const std::vector<std::string>& argv) {
  CapturedRun run;
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0) return run;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    return run;
  }
  ChildSetup setup;
  setup.out = out[1];
  setup.err = err[1];
  const pid_t pid = start_child(argv, setup);
  ::close(out[1]), ::close(err[1]);
  // Both read at once: a child that fills one pipe while this reads the
  // other would wait for ever.
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* into[2] = {&run.out, &run.err};
  int open_pipes = 2;
  char chunk[65536];
  while (pid > 0 && open_pipes > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[i].fd = -1;
        --open_pipes;
        continue;
      }
      into[i]->append(chunk, static_cast<std::size_t>(got));
    }
  }
  ::close(out[0]), ::close(err[0]);
  run.exit_code = wait_child(pid);
  return run;
}

std::vector<std::string> this_heapql(const std::vector<std::string>& arguments) {
  const auto self = program_path();
  if (!self) throw Error("cannot find this heapql's own file (/proc/self/exe) to run it again");
  std::vector<std::string> argv = {self->string()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return argv;
}

}  // namespace heapql::cli

#endif  // _WIN32
