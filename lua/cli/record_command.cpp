// `heapql record -o NAME -- PROGRAM ARGS`: records with `heaptrack --raw`
// (block addresses, module bases), then runs heaptrack_interpret on the raw
// stream (symbols), keeping both: NAME.zst opens in heapql with exact block
// identity (its raw twin NAME.raw.zst is found beside it) and in
// heaptrack_print as usual. Last, it ingests the pair into NAME.zst.hqdb, the
// store later commands answer from.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/progress_bar.h"
#include "lua/cli/commands.h"
#include "lua/cli/exit_codes.h"

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

// Starts argv with `in` as its stdin (-1: this process's) and `out` as its
// stdout (-1: this process's); -1 when it could not start.
pid_t start_program(const std::vector<std::string>& argv, int in, int out, std::initializer_list<int> close_in_child) {
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
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

// Runs argv with the file `input` fed to its stdin, drawing a progress bar of
// the bytes fed: heaptrack_interpret takes about a second a million
// allocations and says nothing while it works. Returns its exit status.
int run_program_fed(const std::vector<std::string>& argv, const std::string& input) {
  std::FILE* file = std::fopen(input.c_str(), "rbe");
  if (file == nullptr) return -1;
  int in[2] = {-1, -1};
  if (::pipe(in) != 0) {
    std::fclose(file);
    return -1;
  }
  const pid_t pid = start_program(argv, in[0], -1, {in[0], in[1]});
  ::close(in[0]);
  // A program that stops reading must fail this write, not kill heapql.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  std::error_code size_error;
  const std::uint64_t total = fs::file_size(input, size_error);
  {
    ProgressBar progress(input, size_error ? 0 : total, true);
    std::vector<char> chunk(1 << 20);
    std::uint64_t fed = 0;
    for (std::size_t got; pid > 0 && (got = std::fread(chunk.data(), 1, chunk.size(), file)) > 0;) {
      if (!write_all(in[1], std::string_view(chunk.data(), got))) break;
      fed += got;
      progress.update(fed);
    }
  }
  ::close(in[1]);
  ::sigaction(SIGPIPE, &previous, nullptr);
  std::fclose(file);
  return wait_program(pid);
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
  std::string name;
  while (!args.done() && !args.at_separator() && args.at_option()) {
    const std::string option = args.take_option();
    if (option == "-o" || option == "--output") {
      name = args.take_value(option);
    } else {
      throw UsageError{fmt::format("unknown option '{}' (usage: heapql record [-o NAME] -- PROGRAM [ARGS...])", option)};
    }
  }
  const std::vector<std::string> program = args.take_rest();
  if (program.empty()) throw UsageError{"usage: heapql record [-o NAME] -- PROGRAM [ARGS...]"};
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
  const int status = run_program(command, &chatter);
  std::string raw, compressor, uncompressor, suffix;
  if (fs::exists(name + ".raw.zst")) {
    raw = name + ".raw.zst", compressor = "zstd -q -c", uncompressor = "zstd -q -dc", suffix = ".zst";
  } else if (fs::exists(name + ".raw.gz")) {
    raw = name + ".raw.gz", compressor = "gzip -c", uncompressor = "gzip -dc", suffix = ".gz";
  } else {
    fmt::print(stderr, "heapql record: heaptrack wrote no raw trace {}.raw.zst (exit status {})\n", name, status);
    return kExitRecordFailed;
  }
  if (status != 0) fmt::print(stderr, "heapql record: note: the program exited with status {}\n", status);

  const std::string interpreted = name + suffix;
  const std::string pipeline = fmt::format("set -o pipefail; {} | {} | {} > {}", uncompressor,
                                           shell_quote(interpreter), compressor, shell_quote(interpreted));
  fmt::print(stderr, "heapql record: symbolizing {}\n", raw);
  if (const int interpreted_status = run_program_fed({"bash", "-c", pipeline}, raw); interpreted_status != 0) {
    // What it wrote is cut short: heapql would read it with a warning, and
    // heaptrack_print not at all. The raw recording stays, to interpret again.
    std::error_code ignored;
    fs::remove(interpreted, ignored);
    fmt::print(stderr, "heapql record: heaptrack_interpret failed on {} (exit status {}); the raw recording stays\n",
               raw, interpreted_status);
    return kExitRecordFailed;
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
