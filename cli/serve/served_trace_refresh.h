// A served trace whose files change while it is served is opened again: a
// recording in progress, whose live journal grows each second until its
// store is written (docs/serve.md, "A recording in progress"). Once a
// period, each trace's files are looked at (size and modification time); when
// one changed, the trace's session is opened anew and registered
// (engine/session/open_sessions.h), and its summary (/api/traces) asked
// again. A request answers from the session registered when its worker was
// forked.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/ingest/open_options.h"
#include "cli/serve/api_routes.h"

namespace heapql::cli {

class ServedTraceRefresher {
 public:
  // Each trace's fingerprint is taken now: the server has just opened them.
  ServedTraceRefresher(ServeState& state, OpenOptions open, std::chrono::milliseconds period);
  ~ServedTraceRefresher();
  ServedTraceRefresher(const ServedTraceRefresher&) = delete;
  ServedTraceRefresher& operator=(const ServedTraceRefresher&) = delete;

  // What decides a trace's answer on disk: the size and modification time of
  // the trace, of its store beside it and of its live journal. Equal
  // fingerprints: nothing to open again.
  static std::string fingerprint(const std::string& path);

 private:
  void run();
  void refresh(std::size_t trace_index);

  ServeState& state_;
  OpenOptions open_;
  std::chrono::milliseconds period_;
  std::vector<std::string> fingerprints_;
  std::vector<std::string> failures_;  // each trace's last error, said once
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace heapql::cli
