// `heapql top` (docs/cli.md): a terminal view of a recording in progress, the
// stacks holding the most memory, asked again every second until the
// recording ends. `heapql top -- PROGRAM ARGS` records the program itself
// (`heapql record` in a child) and shows it; `heapql top TRACE` watches a
// recording another `heapql record` makes. Each view is `heapql query TRACE
// --by stack` run in a child, so it answers as the command line would.
#ifndef _WIN32

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>

#include "engine/error.h"
#include "engine/platform/terminal.h"
#include "engine/session/live_recording.h"
#include "engine/session/trace_store_location.h"
#include "engine/units.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/child_process.h"
#include "cli/recording_child.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;

struct TopArguments {
  std::string trace;       // watched, or recorded into (NAME.zst)
  std::string output_name; // -o NAME: record into NAME.zst
  std::vector<std::string> program;
  std::string top = "10";
  std::chrono::milliseconds interval{1000};
};

TopArguments parse_top_arguments(Arguments& args) {
  TopArguments parsed;
  while (!args.done() && !args.at_separator()) {
    if (!args.at_option()) {
      if (!parsed.trace.empty()) throw UsageError{"heapql top watches one trace"};
      parsed.trace = args.take_positional();
      continue;
    }
    const std::string option = args.take_option();
    if (option == "-o" || option == "--output") {
      parsed.output_name = args.take_value(option);
    } else if (option == "--top") {
      parsed.top = args.take_value(option);
      if (parsed.top.empty() || parsed.top.find_first_not_of("0123456789") != std::string::npos || parsed.top == "0") {
        throw UsageError{fmt::format("--top '{}': expected a whole number above 0", parsed.top)};
      }
    } else if (option == "--interval") {
      const std::string value = args.take_value(option);
      std::int64_t ns = 0;
      try {
        ns = parse_duration_ns(value);
      } catch (const Error& e) {
        throw UsageError{fmt::format("--interval {}", e.what())};
      }
      if (ns < 100'000'000) throw UsageError{fmt::format("--interval '{}': at least 100ms", value)};
      parsed.interval = std::chrono::milliseconds(ns / 1'000'000);
    } else {
      args.unknown_option(option);
    }
  }
  parsed.program = args.take_rest();
  if (parsed.trace.empty() == parsed.program.empty()) {
    throw UsageError{"usage: heapql top TRACE, or heapql top [-o NAME] -- PROGRAM [ARGS...]"};
  }
  if (!parsed.output_name.empty() && parsed.program.empty()) {
    throw UsageError{"-o names the recording heapql top makes: heapql top -o NAME -- PROGRAM [ARGS...]"};
  }
  return parsed;
}

// Whether the trace can be asked yet: its recording has published its first
// part, or it is over (a store, or the trace alone).
bool answerable(const std::string& trace) {
  std::error_code ec;
  return live_journal_for(trace, false).has_value() || fs::exists(store_beside(trace), ec) || fs::exists(trace, ec);
}

std::string clock_text() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

class TopView {
 public:
  TopView(const TopArguments& arguments, std::string trace) : arguments_(arguments), trace_(std::move(trace)) {}

  // One view: the query's answer under a line saying what it is. False when
  // the query failed (its message is shown instead).
  bool show(bool last) {
    const CapturedRun answer =
        run_capturing_apart(this_heapql({"query", trace_, "--by", "stack", "--top", arguments_.top, "--no-progress"}));
    const bool ok = answer.exit_code == kExitOk;
    std::string state = last ? "the recording is over" : "recording";
    // The query's own note says how far the recording it answered has come.
    if (const auto at = answer.err.find("recording in progress"); at != std::string::npos) {
      state = answer.err.substr(at, answer.err.find_first_of(":\n", at) - at);
    }
    std::string frame;
    if (terminal_) frame += "\x1b[H\x1b[2J";  // the screen cleared: the view redrawn in place
    frame += fmt::format("heapql top: {}: {} (at {}{})\n\n", trace_, state, clock_text(),
                         last ? "" : arguments_.program.empty() ? "; Ctrl-C stops watching" : "; Ctrl-C ends the program");
    frame += ok ? answer.out : answer.err;
    if (!terminal_) frame += "\n";  // views one after another, apart
    std::fputs(frame.c_str(), stdout);
    std::fflush(stdout);
    return ok;
  }

 private:
  const TopArguments& arguments_;
  std::string trace_;
  bool terminal_ = is_terminal(StandardStream::kOutput);
};

}  // namespace

int run_top(Arguments& args) {
  const TopArguments arguments = parse_top_arguments(args);
  if (arguments.program.empty()) {
    // Watching another's recording, until it is over.
    if (!answerable(arguments.trace)) throw Error(fmt::format("{}: no such trace or recording", arguments.trace));
    TopView view(arguments, arguments.trace);
    while (recording_in_progress(arguments.trace)) {
      view.show(false);
      std::this_thread::sleep_for(arguments.interval);
    }
    return view.show(true) ? kExitOk : kExitBadQuery;
  }

  // Recording the program: `heapql record` in a child. A Ctrl-C at the
  // terminal reaches the program, which ends; the recording then completes
  // its store, and the last view is drawn from it.
  std::optional<InterruptsEndTheProgram> interrupts(std::in_place);
  RecordingChild recording(arguments.output_name, arguments.program);
  fmt::print(stderr, "heapql top: recording into {} (its messages and the program's output: {})\n", recording.trace(),
             recording.log());
  TopView view(arguments, recording.trace());
  while (!recording.ended()) {
    if (recording_in_progress(recording.trace())) view.show(false);
    std::this_thread::sleep_for(arguments.interval);
  }
  interrupts.reset();
  if (const int status = *recording.ended(); status != kExitOk) {
    fmt::print(stderr, "heapql top: heapql record ended with exit status {} (its log: {})\n", status, recording.log());
    return status;
  }
  return view.show(true) ? kExitOk : kExitBadQuery;
}

}  // namespace heapql::cli

#else  // _WIN32

#include <cstdio>

#include "cli/commands.h"
#include "cli/exit_codes.h"

namespace heapql::cli {

int run_top(Arguments&) {
  std::fputs("heapql top: not available on Windows (it watches a recording heapql record makes with heaptrack, "
             "on Linux); record with WPR and read the trace (heapql record prints how)\n",
             stderr);
  return kExitNotOnThisSystem;
}

}  // namespace heapql::cli

#endif  // _WIN32
