// The sessions held open for others (open_sessions.h).
#include "engine/session/open_sessions.h"

#include <mutex>
#ifndef _WIN32
#include <pthread.h>
#endif
#include <vector>

#include "engine/error.h"

namespace heapql {

namespace {

struct OpenSession {
  TraceSession session;
  OpenOptions options;
};

std::mutex g_mutex;
std::vector<OpenSession> g_sessions;  // a few: the traces a server was given

#ifndef _WIN32
// A server forks its workers while another thread may be registering a
// session opened again (cli/serve/served_trace_refresh.h): the fork waits
// for the registry, so that no child starts with it locked for good.
const bool g_fork_safe = [] {
  ::pthread_atfork([] { g_mutex.lock(); }, [] { g_mutex.unlock(); }, [] { g_mutex.unlock(); });
  return true;
}();
#endif

bool alike(const OpenOptions& a, const OpenOptions& b) {
  return a.use_raw_twin == b.use_raw_twin && a.strict == b.strict && a.format == b.format &&
         a.symbol_paths == b.symbol_paths && a.use_store == b.use_store;
}

}  // namespace

void register_open_session(const TraceSession& session, const OpenOptions& options) {
  if (!session.is_open()) throw Error("register_open_session: the session of '" + session.path() + "' is not open");
  const std::lock_guard lock(g_mutex);
  for (OpenSession& held : g_sessions) {
    if (held.session.path() == session.path() && alike(held.options, options)) {
      held.session = session;
      return;
    }
  }
  g_sessions.push_back(OpenSession{session, options});
}

TraceSession session_for(std::string path, OpenOptions options) {
  {
    const std::lock_guard lock(g_mutex);
    for (const OpenSession& held : g_sessions) {
      if (held.session.path() == path && alike(held.options, options)) return held.session;
    }
  }
  return TraceSession(std::move(path), std::move(options));
}

void forget_open_sessions() {
  const std::lock_guard lock(g_mutex);
  g_sessions.clear();
}

}  // namespace heapql
