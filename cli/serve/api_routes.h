// The endpoints of `heapql serve` (docs/serve.md, "The API"): the page, the
// served traces, and the commands relayed: each API request becomes a command
// line run by a forked worker, whose stdout is the answer and whose stderr
// and exit code are the error.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cli/serve/forked_worker.h"
#include "cli/serve/request_guard.h"
#include "cli/serve/served_lists.h"
#include "cli/serve/view_cancellation.h"
#include "lua/host/command_definitions.h"

namespace httplib {
class Server;
}

namespace heapql::cli {

struct ServedTrace {
  std::string key;        // "1", "2", ... in command-line order
  std::string path;       // as given on the command line
  std::string info_json;  // `heapql info PATH --format json`, at start and when its files change (summaries_mutex)
};

struct ServeState {
  std::vector<ServedTrace> traces;
  ServedLists lists;
  ForkedWorkers workers;
  ViewCancellation views;
  RequestGuard guard;
  // How the server read its traces, as options (--no-progress, --no-raw,
  // --strict, --symbols=P): given to every command that reads one, so that
  // its session is the one the server registered.
  std::vector<std::string> reading_words;
  // --timeout and --memory as given (or their defaults), for the commands
  // that arm the run limits themselves.
  std::vector<std::string> limit_words;
  std::string recipes_dir;  // empty: none
  // What each relayed command accepts (lua/heapql/commands.lua).
  std::map<std::string, std::vector<lua::AcceptedOption>, std::less<>> accepted;
  // Guards each trace's info_json, which served_trace_refresh.h replaces.
  mutable std::mutex summaries_mutex;
};

void add_routes(httplib::Server& server, ServeState& state);

}  // namespace heapql::cli
