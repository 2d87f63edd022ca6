// The sessions this process holds open for others to answer from. `heapql
// serve` opens each trace once at start and registers it here; the workers
// it forks run the command line, whose commands and Lua host take their
// session from session_for, so that a request answers from the store the
// server mapped (or loaded) without opening, checking or reading it again
// (docs/architecture.md, "The session").
#pragma once

#include <string>

#include "engine/ingest/open_options.h"
#include "engine/session/trace_session.h"

namespace heapql {

// Registers `session` (opened: Error otherwise) for its path and reading.
// A later registration for the same path and reading replaces it.
void register_open_session(const TraceSession& session, const OpenOptions& options);

// The session for `path` read with `options`: the registered open one (a
// copy sharing its store) when the path is the same text and the reading is
// alike, else a new one, closed. Alike: the raw twin, strictness, format,
// symbol paths and store use match; progress, warnings' destination and the
// sandbox's confinement do not change an open store's answers, so they are
// not compared.
TraceSession session_for(std::string path, OpenOptions options);

// Forgets every registered session (tests).
void forget_open_sessions();

}  // namespace heapql
