// `heapql record -o NAME -- PROGRAM ARGS`: records with `heaptrack --raw`
// (block addresses, module bases), then runs heaptrack_interpret on the raw
// stream (symbols), keeping both: NAME.zst opens in heapql with exact block
// identity (its raw twin NAME.raw.zst is found beside it) and in
// heaptrack_print as usual. Last, it ingests the pair into NAME.zst.hqdb, the
// store later commands answer from. (On Windows: record_on_windows.cpp.)
#ifndef _WIN32

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/line_reader.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/record_arguments.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// heaptrack's own lines on stdout, among the program's: where it writes, its
// preload library, and its closing advice to run heaptrack_interpret, a step
// heapql record has already taken. heapql says what it wrote instead.
class HeaptrackChatter {
 public:
  bool drop(std::string_view line) {
    if (advice_lines_left_ > 0) {
      --advice_lines_left_;
      return true;
    }
    if (line.starts_with("Heaptrack finished! Now run the following to investigate the data:")) {
      advice_lines_left_ = 2;  // a blank line, then the command
      return true;
    }
    return line.starts_with("heaptrack output will be written to \"") ||
           line.starts_with("starting application, this might take some time...") ||
           (line.starts_with("/") && line.ends_with("libheaptrack_preload.so"));
  }

 private:
  int advice_lines_left_ = 0;
};

// False when the reader went away (or another error).
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t w = ::write(fd, text.data(), text.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(w));
  }
  return true;
}

// While the recorded program runs, a Ctrl-C (SIGINT, or SIGQUIT) at the
// terminal is the user ending the program, which gets it from the terminal
// itself: heapql waits it out and goes on to symbolize and ingest what was
// recorded, as `time` or `perf record` do. The programs it starts get the
// dispositions heapql had.
class InterruptsEndTheProgram {
 public:
  InterruptsEndTheProgram() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &saved_int_);
    ::sigaction(SIGQUIT, &ignore, &saved_quit_);
    current_ = this;
  }
  ~InterruptsEndTheProgram() {
    current_ = nullptr;
    ::sigaction(SIGINT, &saved_int_, nullptr);
    ::sigaction(SIGQUIT, &saved_quit_, nullptr);
  }
  InterruptsEndTheProgram(const InterruptsEndTheProgram&) = delete;
  InterruptsEndTheProgram& operator=(const InterruptsEndTheProgram&) = delete;

  // In a forked child, before exec: heapql's own dispositions back.
  static void restore_in_child() {
    if (current_ == nullptr) return;
    ::sigaction(SIGINT, &current_->saved_int_, nullptr);
    ::sigaction(SIGQUIT, &current_->saved_quit_, nullptr);
  }

 private:
  static inline InterruptsEndTheProgram* current_ = nullptr;
  struct sigaction saved_int_ {};
  struct sigaction saved_quit_ {};
};

// Starts argv with `in` as its stdin (-1: this process's) and `out` as its
// stdout (-1: this process's); -1 when it could not start.
pid_t start_program(const std::vector<std::string>& argv, int in, int out, std::initializer_list<int> close_in_child) {
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    InterruptsEndTheProgram::restore_in_child();
    if (in >= 0) ::dup2(in, STDIN_FILENO);
    if (out >= 0) ::dup2(out, STDOUT_FILENO);
    for (int fd : close_in_child) ::close(fd);
    execvp(raw[0], raw.data());
    _exit(127);
  }
  return pid;
}

// The exit status of a started program (128+signal when killed), -1 when
// it could not start.
int wait_program(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// Runs argv, waits; returns its exit status. With `filter`, the program's
// stdout passes through it line by line.
int run_program(const std::vector<std::string>& argv, HeaptrackChatter* filter = nullptr) {
  if (filter == nullptr) return wait_program(start_program(argv, -1, -1, {}));
  int out[2] = {-1, -1};
  if (::pipe(out) != 0) return -1;
  const pid_t pid = start_program(argv, -1, out[1], {out[0], out[1]});
  ::close(out[1]);
  std::string pending;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(out[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    pending.append(chunk, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string_view line(pending.data() + start, nl - start);
      if (!filter->drop(line)) write_all(STDOUT_FILENO, std::string_view(pending.data() + start, nl - start + 1));
    }
    pending.erase(0, start);
  }
  if (!pending.empty() && !filter->drop(pending)) write_all(STDOUT_FILENO, pending);
  ::close(out[0]);
  return wait_program(pid);
}

// Runs argv with the text of the file `input` fed to its stdin, decoded by
// heapql's own reader, whole lines only: a raw recording cut short (heaptrack's
// script kills its compressor when a Ctrl-C ends it) is fed up to its last
// whole line, and `cut` says where it ends. heaptrack_interpret takes
// about a second a million allocations and says nothing while it works: the
// reader draws a progress bar. Returns the program's exit status.
int run_program_fed(const std::vector<std::string>& argv, const std::string& input, std::optional<TraceCut>& cut) {
  int in[2] = {-1, -1};
  if (::pipe(in) != 0) return -1;
  const pid_t pid = start_program(argv, in[0], -1, {in[0], in[1]});
  ::close(in[0]);
  // A program that stops reading must fail this write, not kill heapql.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  bool read_failed = false;
  try {
    LineReader reader(input, true);
    std::string_view line;
    while (pid > 0) {
      const std::string_view lines = reader.whole_lines();
      if (!lines.empty()) {
        if (!write_all(in[1], lines)) break;
        reader.skip(lines.data() + lines.size(),
                    static_cast<std::uint64_t>(std::count(lines.begin(), lines.end(), '\n')));
      } else if (!reader.next(line) || !write_all(in[1], line) || !write_all(in[1], "\n")) {
        break;
      }
    }
    cut = reader.cut();
  } catch (const Error& e) {
    fmt::print(stderr, "heapql record: {}\n", e.what());
    read_failed = true;
  }
  ::close(in[1]);
  ::sigaction(SIGPIPE, &previous, nullptr);
  const int status = wait_program(pid);
  return read_failed ? -1 : status;
}

// Whether a process holds `path` open (as /proc/PID/fd shows it; other
// users' processes, which this one cannot look into, are passed over).
bool someone_holds_open(const fs::path& path) {
  std::error_code ec;
  for (const fs::directory_entry& process : fs::directory_iterator("/proc", ec)) {
    const std::string pid = process.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code fd_error;
    for (const fs::directory_entry& fd : fs::directory_iterator(process.path() / "fd", fd_error)) {
      std::error_code link_error;
      if (fs::read_symlink(fd.path(), link_error) == path) return true;
    }
  }
  return false;
}

// heaptrack's script, ended by a Ctrl-C, kills its compressor and returns
// without waiting for it: the raw file may still be being written. It is read
// once no process holds it open, or after 10 s.
void wait_until_written(const std::string& file) {
  std::error_code ec;
  const fs::path path = fs::canonical(file, ec);
  if (ec) return;
  for (int tries = 0; tries < 200 && someone_holds_open(path); ++tries) ::usleep(50'000);
}

std::string find_interpreter() {
  if (const char* env = std::getenv("HEAPQL_HEAPTRACK_INTERPRET")) return env;
  for (const char* candidate : {"/usr/lib/heaptrack/libexec/heaptrack_interpret",
                                "/usr/lib/x86_64-linux-gnu/heaptrack/libexec/heaptrack_interpret",
                                "/usr/local/lib/heaptrack/libexec/heaptrack_interpret"}) {
    if (fs::exists(candidate)) return candidate;
  }
  throw UsageError{"cannot find heaptrack_interpret (install Debian's heaptrack, or set HEAPQL_HEAPTRACK_INTERPRET)"};
}

bool have_program(const std::string& name) {
  return std::system(fmt::format("command -v {} >/dev/null 2>&1", shell_quote(name)).c_str()) == 0;
}

}  // namespace

int run_record(Arguments& args) {
  RecordArguments parsed = parse_record_arguments(args);
  std::string& name = parsed.output_name;
  const std::vector<std::string>& program = parsed.program;
  if (program.empty()) throw UsageError{fmt::format("usage: {}", kRecordUsage)};
  if (name.empty()) name = fmt::format("heaptrack.{}.{}", fs::path(program[0]).filename().string(), getpid());
  for (std::string_view suffix : {".zst", ".gz"}) {
    if (name.size() > 4 && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  if (!have_program("heaptrack")) {
    fmt::print(stderr, "heapql record: heaptrack is not installed (apt-get install heaptrack)\n");
    return kExitRecordFailed;
  }
  const std::string interpreter = find_interpreter();

  // Leftovers of an earlier recording under the same name would be mistaken for this one's.
  for (const char* suffix : {".raw.zst", ".raw.gz", ".zst", ".gz"}) fs::remove(name + suffix);

  std::vector<std::string> command = {"heaptrack", "--raw", "-o", name};
  command.insert(command.end(), program.begin(), program.end());
  HeaptrackChatter chatter;
  std::fflush(stdout);
  int status = 0;
  {
    const InterruptsEndTheProgram interrupts;
    status = run_program(command, &chatter);
  }
  std::string raw, compressor, suffix;
  if (fs::exists(name + ".raw.zst")) {
    raw = name + ".raw.zst", compressor = "zstd -q -c", suffix = ".zst";
  } else if (fs::exists(name + ".raw.gz")) {
    raw = name + ".raw.gz", compressor = "gzip -c", suffix = ".gz";
  } else {
    fmt::print(stderr, "heapql record: heaptrack wrote no raw trace {}.raw.zst (exit status {})\n", name, status);
    return kExitRecordFailed;
  }
  if (status != 0) fmt::print(stderr, "heapql record: note: the program exited with status {}\n", status);
  wait_until_written(raw);

  const std::string interpreted = name + suffix;
  const std::string pipeline =
      fmt::format("set -o pipefail; {} | {} > {}", shell_quote(interpreter), compressor, shell_quote(interpreted));
  fmt::print(stderr, "heapql record: symbolizing {}\n", raw);
  std::optional<TraceCut> raw_cut;
  if (const int interpreted_status = run_program_fed({"bash", "-c", pipeline}, raw, raw_cut); interpreted_status != 0) {
    // What it wrote is cut short: heapql would read it with a warning, and
    // heaptrack_print not at all. The raw recording stays, to interpret again.
    std::error_code ignored;
    fs::remove(interpreted, ignored);
    fmt::print(stderr, "heapql record: heaptrack_interpret failed on {} (exit status {}); the raw recording stays\n",
               raw, interpreted_status);
    return kExitRecordFailed;
  }
  if (raw_cut) {
    // Said again, with what it covers, when the pair is read below.
    fmt::print(stderr,
               "heapql record: the recording ends early ({} at byte {}): symbolized up to its last whole line\n",
               raw_cut->what, raw_cut->at_byte);
  }
  fmt::print(stderr, "heapql record: wrote {} (symbols) and {} (block addresses)\n", interpreted, raw);
  // The exact-identity reading is paid once, now, while the user waits for
  // the recording anyway; later commands answer from the store.
  OpenOptions open;
  open.show_progress = true;
  try {
    const IngestResult stored = ingest_trace(interpreted, "", open);
    print_ingested(stored, interpreted);
  } catch (const Error& e) {
    fmt::print(stderr, "heapql record: the recording is complete, but its store was not written: {}\n", e.what());
  }
  fmt::print(stderr, "heapql record: open {}\n", interpreted);
  return kExitOk;
}

}  // namespace heapql::cli

#endif  // _WIN32
