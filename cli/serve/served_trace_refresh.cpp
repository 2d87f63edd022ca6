#include "cli/serve/served_trace_refresh.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>

#include "engine/error.h"
#include "engine/session/live_journal.h"
#include "engine/session/live_recording.h"
#include "engine/session/open_sessions.h"
#include "engine/session/trace_session.h"
#include "engine/session/trace_store_location.h"
#include "cli/exit_codes.h"

namespace heapql::cli {

namespace {

// "size:mtime" of a file, "-" when there is none.
std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "-";
  return fmt::format("{}:{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

}  // namespace

std::string ServedTraceRefresher::fingerprint(const std::string& path) {
  const std::string trace = trace_of_journal_path(path);
  return file_stamp(trace) + " " + file_stamp(store_beside(trace)) + " " + file_stamp(live_journal_beside(trace));
}

ServedTraceRefresher::ServedTraceRefresher(ServeState& state, OpenOptions open, std::chrono::milliseconds period)
    : state_(state), open_(std::move(open)), period_(period) {
  for (const ServedTrace& trace : state_.traces) fingerprints_.push_back(fingerprint(trace.path));
  failures_.resize(fingerprints_.size());
  thread_ = std::thread([this] { run(); });
}

ServedTraceRefresher::~ServedTraceRefresher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ServedTraceRefresher::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    for (std::size_t i = 0; i < fingerprints_.size(); ++i) refresh(i);
    lock.lock();
  }
}

void ServedTraceRefresher::refresh(std::size_t i) {
  const std::string& path = state_.traces[i].path;
  const std::string now = fingerprint(path);
  if (now == fingerprints_[i]) return;
  try {
    TraceSession session(path, open_);
    session.open();
    session.prepare_for_many_queries();
    register_open_session(session, open_);
    std::vector<std::string> words = {"info", path, "--format", "json"};
    words.insert(words.end(), state_.reading_words.begin(), state_.reading_words.end());
    const std::atomic<bool> never{false};
    const WorkerOutcome info = state_.workers.run(words, true, "heapql info: ", never);
    if (info.end != WorkerOutcome::End::kExited || info.exit_code != kExitOk) throw Error("heapql info failed: " + info.err);
    {
      const std::lock_guard lock(state_.summaries_mutex);
      state_.traces[i].info_json = info.out;
    }
    fingerprints_[i] = now;
    failures_[i].clear();
  } catch (const Error& e) {
    // Tried again next period (the files may be between two states: a
    // recording's end, its store being renamed into place); said once.
    if (failures_[i] != e.what()) fmt::print(stderr, "heapql serve: {}: not opened again: {}\n", path, e.what());
    failures_[i] = e.what();
  }
}

}  // namespace heapql::cli
