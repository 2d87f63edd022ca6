// `heapql record -o NAME -- PROGRAM ARGS`: records with `heaptrack --raw`
// (block addresses, module bases), then runs heaptrack_interpret on the raw
// stream (symbols), keeping both: NAME.zst opens in heapql with exact block
// identity (its raw twin NAME.raw.zst is found beside it) and in
// heaptrack_print as usual. Last, it ingests the pair into NAME.zst.hqdb, the
// store later commands answer from.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "engine/error.h"
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

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t w = ::write(fd, text.data(), text.size());
    if (w <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(w));
  }
}

// Runs argv, waits; returns the exit status (128+signal when killed), -1 when
// it could not start. With `filter`, the program's stdout passes through it
// line by line.
int run_program(const std::vector<std::string>& argv, HeaptrackChatter* filter = nullptr) {
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  int out[2] = {-1, -1};
  if (filter != nullptr && ::pipe(out) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (filter != nullptr) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      ::close(out[1]);
    }
    execvp(raw[0], raw.data());
    _exit(127);
  }
  if (filter != nullptr) {
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
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
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
  const std::string pipeline = fmt::format("set -o pipefail; {} < {} | {} | {} > {}", uncompressor, shell_quote(raw),
                                           shell_quote(interpreter), compressor, shell_quote(interpreted));
  if (run_program({"bash", "-c", pipeline}) != 0) {
    fmt::print(stderr, "heapql record: heaptrack_interpret failed on {}\n", raw);
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
