// `heapql record -o NAME -- PROGRAM ARGS`: records with `heaptrack --raw`
// (block addresses, module bases), then runs heaptrack_interpret on the raw
// stream (symbols), keeping both: NAME.zst opens in heapql with exact block
// identity (its raw twin NAME.raw.zst is found beside it) and in
// heaptrack_print as usual.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

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

// Runs argv, waits; returns the exit status (128+signal when killed), -1 when it could not start.
int run_program(const std::vector<std::string>& argv) {
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execvp(raw[0], raw.data());
    _exit(127);
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
  const int status = run_program(command);
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
  fmt::print(stderr, "heapql record: wrote {} (symbols) and {} (block addresses); open {}\n", interpreted, raw,
             interpreted);
  return kExitOk;
}

}  // namespace heapql::cli
