// `heapql record` run by another heapql command while it shows the
// recording: `heapql top -- PROGRAM` and `heapql serve --record -- PROGRAM`.
// The recording's messages and the program's output go to NAME.log (the
// terminal or the server's stdout is the view's).
#pragma once
#ifndef _WIN32

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace heapql::cli {

class RecordingChild {
 public:
  // Starts `heapql record -o NAME -- PROGRAM...`, NAME `output_name` or,
  // when that is empty, the default `heapql record` gives (recording_name).
  // Throws Error when it cannot start or its log cannot be written.
  RecordingChild(const std::string& output_name, const std::vector<std::string>& program);
  ~RecordingChild();  // waits for it (the store is being written)
  RecordingChild(const RecordingChild&) = delete;
  RecordingChild& operator=(const RecordingChild&) = delete;

  const std::string& trace() const { return trace_; }  // NAME.zst
  const std::string& log() const { return log_; }      // NAME.log

  // Waits until the recording can be asked (its live journal is published,
  // or it is over). Throws Error, naming the log, when it ended failing.
  void wait_until_answerable();
  // Its exit status once it has ended; nullopt while it runs.
  std::optional<int> ended();
  // Waits for its end, at most `patience`; its exit status, or nullopt.
  std::optional<int> wait(std::chrono::milliseconds patience);
  // Not waited for when this ends: it goes on recording on its own.
  void leave_running() { pid_ = -1; }

 private:
  std::string name_, trace_, log_;  // NAME, NAME.zst, NAME.log
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace heapql::cli

#endif  // _WIN32
