#ifndef _WIN32
#include "cli/recording_child.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/session/live_recording.h"
#include "engine/session/trace_store_location.h"
#include "cli/child_process.h"
#include "cli/record_arguments.h"

namespace heapql::cli {

namespace fs = std::filesystem;

namespace {

std::string name_of(const std::string& output_name, const std::vector<std::string>& program) {
  return recording_name(output_name, fs::path(program.front()).filename().string(), std::to_string(::getpid()));
}

}  // namespace

RecordingChild::RecordingChild(const std::string& output_name, const std::vector<std::string>& program)
    : name_(name_of(output_name, program)), trace_(name_ + ".zst"), log_(name_ + ".log") {
  const int log_fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw Error(fmt::format("{}: cannot write the recording's log: {}", log_, errno_text(errno)));
  std::vector<std::string> words = {"record", "-o", name_, "--"};
  words.insert(words.end(), program.begin(), program.end());
  ChildSetup setup;
  setup.out = setup.err = log_fd;
  pid_ = start_child(this_heapql(words), setup);
  const int start_error = errno;
  ::close(log_fd);
  if (pid_ < 0) throw Error("cannot start heapql record: " + errno_text(start_error));
}

RecordingChild::~RecordingChild() {
  if (pid_ > 0 && !status_) wait_child(pid_);
}

std::optional<int> RecordingChild::ended() {
  int status = 0;
  if (pid_ > 0 && !status_ && child_ended(pid_, status)) status_ = status;
  return status_;
}

std::optional<int> RecordingChild::wait(std::chrono::milliseconds patience) {
  const auto until = std::chrono::steady_clock::now() + patience;
  while (!ended() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status_;
}

void RecordingChild::wait_until_answerable() {
  for (;;) {
    if (recording_in_progress(trace_)) return;
    if (const auto status = ended()) {
      std::error_code ec;
      if (*status == 0 && fs::exists(store_beside(trace_), ec)) return;
      throw Error(fmt::format("heapql record ended with exit status {} before its recording could be shown (its log: {})",
                              *status, log_));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace heapql::cli
#endif  // _WIN32
