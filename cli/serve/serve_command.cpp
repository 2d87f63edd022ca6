// `heapql serve TRACE...` (docs/serve.md): opens each trace once, binds,
// prints the URL line, and serves until SIGINT or SIGTERM.
#include <fmt/format.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "engine/error.h"
#include "engine/session/open_sessions.h"
#include "engine/session/trace_session.h"
#include "engine/units.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/query_options.h"
#include "cli/recording_child.h"
#include "cli/serve/api_routes.h"
#include "cli/serve/served_trace_refresh.h"
#include "cli/serve/server_token.h"

namespace heapql::cli {

namespace {

constexpr int kMostJobs = 64;

struct ServeOptions {
  std::vector<std::string> paths;
  int port = 0;
  std::string bind = "127.0.0.1";
  std::string recipes_dir;
  WorkerLimits limits;
  std::vector<std::string> limit_words = {"--timeout=60s", "--memory=4GiB"};
  CommonOptions common;
  std::vector<std::string> reading_words;
  // --record [-o NAME] -- PROGRAM ARGS: the program recorded while served.
  bool record = false;
  std::string record_name;
  std::vector<std::string> program;
};

int int_option(Arguments& args, const std::string& option, int low, int high) {
  const std::string value = args.take_value(option);
  try {
    std::size_t used = 0;
    const int n = std::stoi(value, &used);
    if (used == value.size() && n >= low && n <= high) return n;
  } catch (const std::exception&) {
  }
  throw UsageError{fmt::format("{} '{}': expected a whole number from {} to {}", option, value, low, high)};
}

ServeOptions parse_serve_options(Arguments& args) {
  ServeOptions o;
  while (!args.done()) {
    if (args.at_separator()) {
      o.program = args.take_rest();
      break;
    }
    if (!args.at_option()) {
      o.paths.push_back(args.take_positional());
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--record") {
      o.record = true;
    } else if (option == "-o" || option == "--output") {
      o.record_name = args.take_value(option);
    } else if (option == "--port") {
      o.port = int_option(args, option, 0, 65535);
    } else if (option == "--bind") {
      o.bind = args.take_value(option);
    } else if (option == "--jobs") {
      o.limits.jobs = int_option(args, option, 1, kMostJobs);
    } else if (option == "--recipes") {
      o.recipes_dir = args.take_value(option);
      std::error_code error;
      if (!std::filesystem::is_directory(o.recipes_dir, error)) {
        throw UsageError{fmt::format("--recipes '{}': expected a folder of recipes", o.recipes_dir)};
      }
    } else if (option == "--timeout") {
      const std::string value = args.take_value(option);
      std::int64_t ns = 0;
      try {
        ns = value == "0" ? 0 : parse_duration_ns(value);  // 0: no limit, as heapql run's
      } catch (const Error& e) {
        throw UsageError{fmt::format("--timeout {}", e.what())};
      }
      o.limits.timeout = std::chrono::milliseconds(std::max<std::int64_t>(ns / 1'000'000, ns > 0 ? 1 : 0));
      o.limit_words[0] = "--timeout=" + value;
    } else if (option == "--memory") {
      const std::string value = args.take_value(option);
      try {
        o.limits.memory_bytes = static_cast<std::size_t>(parse_size_bytes(value));
      } catch (const Error& e) {
        throw UsageError{fmt::format("--memory {}", e.what())};
      }
      o.limit_words[1] = "--memory=" + value;
    } else if (parse_common_option(option, args, o.common)) {
      // --no-progress, --no-raw, --strict, --symbols (the definition accepts no other)
      o.reading_words.push_back(option == "--symbols" ? "--symbols=" + o.common.symbol_paths.back() : option);
    } else {
      args.unknown_option(option);
    }
  }
  if (o.record) {
    if (o.program.empty() || !o.paths.empty()) {
      throw UsageError{"--record serves the recording of a program: heapql serve --record [-o NAME] -- PROGRAM [ARGS...]"};
    }
  } else if (!o.program.empty() || !o.record_name.empty()) {
    throw UsageError{"a program and -o are for --record: heapql serve --record [-o NAME] -- PROGRAM [ARGS...]"};
  }
  if (o.paths.empty() && !o.record) throw UsageError{"needs a trace file (heapql serve TRACE...)"};
  return o;
}

// "[::1]" for an IPv6 address in a URL.
std::string url_host(const std::string& bind) {
  return bind.find(':') != std::string::npos ? "[" + bind + "]" : bind;
}

}  // namespace

int serve_command(Arguments& args) {
  ServeOptions options = parse_serve_options(args);
  // The stop signals are blocked before any thread starts (the engine's
  // readers start some), so that every thread inherits the mask, and one
  // thread takes them: before serving it ends the process as the signal
  // would have; once serving, it stops the server, which then exits 0.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client gone is its connection's error, not the server's end
  httplib::Server server;
  std::atomic<bool> serving{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> listen_ended{false};
  std::atomic<bool> returning{false};  // serve_command returns or throws: the stopper just ends
  std::thread stopper([&] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    if (returning.load()) return;
    if (!serving.load()) ::_exit(128 + signal_number);
    stopped.store(true);
    end_every_worker();  // stop() joins the connections' threads: their workers end now
    // Signalled just after the URL line: stop() stops only a running server.
    while (!server.is_running() && !listen_ended.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.stop();
  });
  struct StopperJoined {
    std::thread& stopper;
    std::atomic<bool>& returning;
    // Ended otherwise than by a signal (or by one, already taken): wake the
    // stopper (the signal is blocked everywhere, so it goes to its sigwait).
    ~StopperJoined() {
      returning.store(true);
      pthread_kill(stopper.native_handle(), SIGTERM);
      stopper.join();
    }
  } stopper_joined{stopper, returning};

  // --record: the program recorded by `heapql record` in a child, served
  // from its first published part; its end is served as it comes.
  std::optional<RecordingChild> recording;
  if (options.record) {
    recording.emplace(options.record_name, options.program);
    fmt::print(stderr, "heapql serve: recording into {} (its messages and the program's output: {})\n",
               recording->trace(), recording->log());
    recording->wait_until_answerable();
    options.paths.push_back(recording->trace());
  }
  // Each trace opened once (a store mapped, or the trace read into one) and
  // registered: every worker answers from it (engine/session/open_sessions.h).
  const OpenOptions open = open_options_of(options.common);
  for (const std::string& path : options.paths) {
    TraceSession session(path, open);
    session.open();
    // Before any worker is forked: they share what it makes (every gesture
    // of the page is a query; docs/serve-speed.md).
    session.prepare_for_many_queries();
    register_open_session(session, open);
  }
  const int jobs = options.limits.jobs;
  // Threads for connections: the jobs, and more for requests that wait in
  // line or need no worker (the page, /api/traces, refusals).
  server.new_task_queue = [jobs] { return new httplib::ThreadPool(static_cast<std::size_t>(jobs + 6)); };
  server.set_payload_max_length(1024);
  // An answer is written as headers then body: without this, Nagle's
  // algorithm can hold the body back for the browser's delayed ACK.
  server.set_tcp_nodelay(true);
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.bind);
  } else if (!server.bind_to_port(options.bind, port)) {
    port = -1;
  }
  if (port <= 0) throw Error(fmt::format("heapql serve: cannot listen on {}:{}", options.bind, options.port));

  // Loaded once: the workers' dispatcher runs with a copy of it each.
  lua::CommandDefinitions definitions;
  ServeState state{{},
                   ServedLists::find(options.recipes_dir, lua::Limits{options.limits.timeout, options.limits.memory_bytes}),
                   ForkedWorkers(options.limits, definitions),
                   {},
                   RequestGuard(new_server_token(), options.bind, port),
                   options.reading_words,
                   options.limit_words,
                   options.recipes_dir,
                   {},
                   {}};
  for (const char* command : {"query", "diff", "run", "help", "list", "info"}) {
    state.accepted[command] = definitions.accepted(command).value_or(std::vector<lua::AcceptedOption>{});
  }
  // /api/traces's summaries: each `heapql info PATH --format json`, once.
  const std::atomic<bool> never{false};
  for (std::size_t i = 0; i < options.paths.size(); ++i) {
    std::vector<std::string> words = {"info", options.paths[i], "--format", "json"};
    words.insert(words.end(), options.reading_words.begin(), options.reading_words.end());
    const WorkerOutcome info = state.workers.run(words, true, "heapql info: ", never);
    if (info.end != WorkerOutcome::End::kExited || info.exit_code != kExitOk) {
      throw Error(fmt::format("heapql serve: {}: heapql info failed: {}", options.paths[i], info.err));
    }
    state.traces.push_back(ServedTrace{std::to_string(i + 1), options.paths[i], info.out});
  }
  add_routes(server, state);
  // A recording in progress grows while served: opened again each second.
  const ServedTraceRefresher refresher(state, open, std::chrono::seconds(1));

  serving.store(true);
  fmt::print("heapql serve: http://{}:{}/?token={}\n", url_host(options.bind), port, state.guard.token());
  std::fflush(stdout);
  const bool listened = server.listen_after_bind();
  listen_ended.store(true);
  if (!listened && !stopped.load()) {
    throw Error(fmt::format("heapql serve: listening on {}:{} failed", options.bind, port));
  }
  // A Ctrl-C at the terminal ended the program too: its store is being
  // written. A program that goes on is left recording.
  if (recording && !recording->wait(std::chrono::seconds(10))) {
    fmt::print(stderr, "heapql serve: the recording goes on; heapql record writes {}'s store when the program ends\n",
               recording->trace());
    recording->leave_running();
  }
  return kExitOk;
}

}  // namespace heapql::cli

// What the program calls once it has loaded this module (cli/serve_module/serve_module.cpp).
extern "C" int heapql_serve_module_run(heapql::cli::Arguments& args) { return heapql::cli::serve_command(args); }
