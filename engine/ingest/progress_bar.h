// ProgressBar: the one-line progress bar trace readers draw on stderr while
// they read a file: bytes read of the file size, rate and time left.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace heapql {

// Draws "name  42% [########............]   512.3 MB/s  ETA 0:07" on stderr,
// redrawn in place with '\r'. It draws only when enabled, total_bytes > 0 and
// stderr is a terminal (so tests and pipes see nothing). The first draw comes
// a quarter of a second after construction, so quick reads never flash a
// bar; later ones at most every 100 ms, so update() may be called often (it
// reads the clock and returns when it is not time yet).
//
// Not thread-safe; not copyable. The destructor erases the line (also when
// an exception unwinds, so an error message gets a clean line).
class ProgressBar {
 public:
  // label: the file being read; only its last path component is shown, cut
  // to its last 28 characters.
  ProgressBar(std::string label, std::uint64_t total_bytes, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // bytes_done of total_bytes are read; redraws when it is time to.
  void update(std::uint64_t bytes_done);
  // Erases the line now (before other output on stderr); a later update()
  // draws it again.
  void clear();
  // Erases the line and draws no more.
  void finish();

  bool enabled() const { return enabled_; }

  // The text of the bar for bytes_done of total_bytes after elapsed_seconds,
  // without the '\r' and padding around it. Pure, for tests.
  static std::string format_line(std::string_view label, std::uint64_t bytes_done, std::uint64_t total_bytes,
                                 double elapsed_seconds);

 private:
  using Clock = std::chrono::steady_clock;

  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  Clock::time_point start_;
  Clock::time_point next_;
  std::size_t width_ = 0;  // characters on screen now, 0 = nothing drawn
};

}  // namespace heapql
