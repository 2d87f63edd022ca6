// `heapql record -o NAME -- PROGRAM ARGS` (or `--pid PID`): records the
// program with heaptrack's library and reads the recording while it is
// made (live_recording.h): NAME.zst, heaptrack's interpreted file, opens in
// heaptrack_print as usual; NAME.zst.hqid keeps the exact block identity
// that heaptrack's raw stream gave; NAME.zst.hqdb is the store later
// commands answer from, written as the program ends. --keep-raw keeps the
// raw stream too (NAME.raw.zst). (On Windows: record_on_windows.cpp.)
#ifndef _WIN32

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "engine/error.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/live_recording.h"
#include "cli/record_arguments.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;

bool have_program(const std::string& name) {
  for (std::string_view dirs = std::getenv("PATH") ? std::getenv("PATH") : ""; !dirs.empty();) {
    const std::size_t colon = dirs.find(':');
    const std::string dir(dirs.substr(0, colon));
    if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return false;
}

// While a recording writes to a child's stdin, a child that has gone must
// fail the write, not kill heapql.
class BrokenPipesFailWrites {
 public:
  BrokenPipesFailWrites() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &saved_);
  }
  ~BrokenPipesFailWrites() { ::sigaction(SIGPIPE, &saved_, nullptr); }
  BrokenPipesFailWrites(const BrokenPipesFailWrites&) = delete;
  BrokenPipesFailWrites& operator=(const BrokenPipesFailWrites&) = delete;

 private:
  struct sigaction saved_ {};
};

// --pid: a Ctrl-C or SIGTERM to heapql ends the recording (not the process,
// which goes on without heaptrack).
class StopSignals {
 public:
  StopSignals() {
    struct sigaction on_stop {};
    on_stop.sa_handler = [](int) { stopped_ = 1; };
    ::sigaction(SIGINT, &on_stop, &saved_int_);
    ::sigaction(SIGTERM, &on_stop, &saved_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &saved_int_, nullptr);
    ::sigaction(SIGTERM, &saved_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool stopped() { return stopped_ != 0; }

 private:
  static inline volatile std::sig_atomic_t stopped_ = 0;
  struct sigaction saved_int_ {};
  struct sigaction saved_term_ {};
};

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// The last non-empty line of a tool's output: what went wrong, usually.
std::string last_line(const std::string& text) {
  std::string_view t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
  const std::size_t nl = t.rfind('\n');
  return std::string(nl == std::string_view::npos ? t : t.substr(nl + 1));
}

// heaptrack's script's `-p`: gdb loads libheaptrack_inject.so into the
// process and calls heaptrack_inject(FIFO). Empty when it did; else why not.
std::string inject_heaptrack(pid_t pid, const HeaptrackInstall& install, const std::string& fifo) {
  const auto [env_status, dlopen_call] = run_capturing({install.env_checker, "dlopen", install.inject});
  if (env_status != 0 || dlopen_call.empty()) {
    return fmt::format("{} dlopen {} failed (exit status {})", install.env_checker, install.inject, env_status);
  }
  const auto [status, said] = run_capturing(
      {"gdb", "--batch-silent", "-n", "-iex=set auto-solib-add off", "-p", std::to_string(pid),
       "--eval-command=sharedlibrary libc.so", "--eval-command=call (void) " + last_line(dlopen_call),
       "--eval-command=sharedlibrary libheaptrack_inject",
       "--eval-command=call (void) heaptrack_inject(\"" + fifo + "\")", "--eval-command=detach"});
  if (status != 0) return fmt::format("gdb failed (exit status {}): {}", status, last_line(said));
  return {};
}

// The script's cleanup: heaptrack stops writing, gdb detaches; the library
// stays loaded (unloading it tends to crash the process).
void stop_heaptrack(pid_t pid) {
  run_capturing({"gdb", "--batch-silent", "-n", "-iex=set auto-solib-add off", "-p", std::to_string(pid),
                 "--eval-command=sharedlibrary libheaptrack_inject",
                 "--eval-command=call (void) heaptrack_stop()", "--eval-command=detach"});
}

void remove_files(std::initializer_list<std::string> paths) {
  for (const std::string& p : paths) {
    std::error_code ignored;
    fs::remove(p, ignored);
  }
}

int attach_failed(const std::string& pid, const std::string& why) {
  fmt::print(stderr, "heapql record: cannot attach to process {}: {}\n", pid, why);
  return kExitNotOnThisSystem;
}

}  // namespace

int run_record(Arguments& args) {
  RecordArguments parsed = parse_record_arguments(args);
  std::string& name = parsed.output_name;
  const std::vector<std::string>& program = parsed.program;
  const bool attach = !parsed.pid.empty();
  if (program.empty() && !attach) throw UsageError{fmt::format("usage: {}", kRecordUsage)};
  const pid_t target = attach ? static_cast<pid_t>(std::stol(parsed.pid)) : 0;
  std::optional<uid_t> target_user;
  if (attach) {
    struct stat st {};
    if (!process_exists(target) || ::stat(fmt::format("/proc/{}", target).c_str(), &st) != 0) {
      return attach_failed(parsed.pid, "there is no such process");
    }
    if (!have_program("gdb")) return attach_failed(parsed.pid, "gdb is not installed (apt-get install gdb)");
    target_user = st.st_uid;
  }
  name = recording_name(name, attach ? "pid" : fs::path(program[0]).filename().string(),
                        attach ? parsed.pid : std::to_string(getpid()));
  const HeaptrackInstall install = find_heaptrack_install();
  if (!fs::exists(attach ? install.inject : install.preload)) {
    fmt::print(stderr, "heapql record: heaptrack's library {} is missing (apt-get install heaptrack)\n",
               attach ? install.inject : install.preload);
    return kExitRecordFailed;
  }
  const std::string interpreted = name + ".zst", raw = name + ".raw.zst", identity = name + ".zst.hqid",
                    store = name + ".zst.hqdb";
  // Leftovers of an earlier recording under the same name would be mistaken for this one's.
  remove_files({raw, name + ".raw.gz", interpreted, name + ".gz", identity, store});

  const BrokenPipesFailWrites broken_pipes;
  LiveRecording recording(name, install, parsed.keep_raw, target_user);
  recording.start();
  int status = 0;
  if (!attach) {
    std::fflush(stdout);
    const InterruptsEndTheProgram interrupts;
    ChildSetup setup;
    const char* preloaded = std::getenv("LD_PRELOAD");
    setup.environment = {{"LD_PRELOAD", install.preload + (preloaded && *preloaded ? std::string(":") + preloaded : "")},
                         {"DUMP_HEAPTRACK_OUTPUT", recording.fifo()}};
    status = wait_child(start_child(program, setup));
    recording.program_ended();
  } else {
    const StopSignals stop;
    fmt::print(stderr, "heapql record: attaching to process {} with gdb\n", parsed.pid);
    const std::string failed = inject_heaptrack(target, install, recording.fifo());
    // heaptrack_inject opens the FIFO before gdb detaches; a moment's grace.
    for (int i = 0; failed.empty() && i < 50 && !recording.writer_seen(); ++i) ::usleep(100'000);
    if (!failed.empty() || !recording.writer_seen()) {
      recording.program_ended();
      recording.finish();
      remove_files({raw, interpreted, identity, store});
      return attach_failed(parsed.pid, failed.empty() ? "heaptrack's library did not start writing" : failed);
    }
    fmt::print(stderr, "heapql record: recording process {}; Ctrl-C stops the recording\n", parsed.pid);
    while (!recording.stream_ended() && !StopSignals::stopped()) ::usleep(100'000);
    if (!recording.stream_ended() && process_exists(target)) {
      fmt::print(stderr, "heapql record: stopping heaptrack in process {} with gdb\n", parsed.pid);
      stop_heaptrack(target);
    }
    recording.program_ended();
  }
  const LiveRecording::Outcome outcome = recording.finish();
  if (status != 0) fmt::print(stderr, "heapql record: note: the program exited with status {}\n", status);
  if (outcome.raw_bytes == 0) {
    remove_files({raw, interpreted, identity, store});
    if (status == 127) {
      fmt::print(stderr, "heapql record: cannot run {} (exit status 127: not found, or not executable)\n", program[0]);
    } else {
      fmt::print(stderr, "heapql record: heaptrack recorded nothing (its library did not load in {})\n",
                 attach ? "process " + parsed.pid : program[0]);
    }
    return kExitRecordFailed;
  }
  if (outcome.interpreter_status != 0 || !outcome.failed_io.empty()) {
    // What it wrote is cut short: heapql would read it with a warning, and
    // heaptrack_print not at all.
    remove_files({interpreted, identity, store});
    if (outcome.interpreter_status != 0) {
      fmt::print(stderr, "heapql record: heaptrack_interpret failed (exit status {})", outcome.interpreter_status);
    } else {
      fmt::print(stderr, "heapql record: {}", outcome.failed_io);
    }
    fmt::print(stderr, "{}\n", parsed.keep_raw ? fmt::format("; the raw recording stays: {}", raw) : std::string());
    return kExitRecordFailed;
  }
  if (outcome.dropped_bytes > 0) {
    fmt::print(stderr, "heapql record: the recording's last line was cut off ({} bytes): left out\n",
               outcome.dropped_bytes);
  }
  fmt::print(stderr, "heapql record: wrote {} (symbols){}{}\n", interpreted,
             fs::exists(identity) ? fmt::format(" and {} (block identity)", identity) : std::string(),
             parsed.keep_raw ? fmt::format(" and {} (the raw recording)", raw) : std::string());
  if (outcome.store_failed) {
    try {
      std::rethrow_exception(outcome.store_failed);
    } catch (const Error& e) {
      fmt::print(stderr, "heapql record: the recording is complete, but its store was not written: {}\n", e.what());
    }
  } else if (outcome.stored) {
    print_ingested(*outcome.stored, interpreted);
    // The readers' queues: what they held at most, waiting for the reading.
    fmt::print(stderr,
               "heapql record: the store was ready {:.2f} s after the recording ended (queued at most {:.1f} MiB "
               "raw, {:.1f} MiB interpreted)\n",
               outcome.seconds_to_store, outcome.raw_queue_peak / 1048576.0, outcome.interpreted_queue_peak / 1048576.0);
  }
  fmt::print(stderr, "heapql record: open {}\n", interpreted);
  return kExitOk;
}

}  // namespace heapql::cli

#endif  // _WIN32
