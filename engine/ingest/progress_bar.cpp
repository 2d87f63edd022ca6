// ProgressBar: timing, the text of the bar and drawing it on stderr.
#include "engine/ingest/progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "engine/platform/terminal.h"

namespace heapql {

namespace {

constexpr auto kFirstDraw = std::chrono::milliseconds(250);
constexpr auto kInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 20;
constexpr std::size_t kNameWidth = 28;
#ifdef _WIN32
constexpr std::string_view kFolderSeparators = "/\\";  // Windows takes either
#else
constexpr std::string_view kFolderSeparators = "/";
#endif

// "m:ss" or "h:mm:ss"; "--:--" when unknown or absurd.
std::string format_time_left(double seconds) {
  if (!(seconds >= 0) || seconds > 99 * 3600) return "--:--";
  auto total = static_cast<std::uint64_t>(seconds + 0.5);
  if (total >= 3600) return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::string label, std::uint64_t total_bytes, bool enabled)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(enabled && total_bytes > 0 && is_terminal(StandardStream::kError)),
      start_(Clock::now()),
      next_(start_ + kFirstDraw) {}

ProgressBar::~ProgressBar() { clear(); }

std::string ProgressBar::format_line(std::string_view label, std::uint64_t bytes_done, std::uint64_t total_bytes,
                                     double elapsed_seconds) {
  const double done = static_cast<double>(bytes_done);
  const double fraction = total_bytes > 0 ? std::min(1.0, done / static_cast<double>(total_bytes)) : 0.0;
  const double rate = elapsed_seconds > 0 ? done / elapsed_seconds : 0.0;
  const double left =
      rate > 0 ? static_cast<double>(total_bytes - std::min(bytes_done, total_bytes)) / rate : -1.0;

  std::string_view name = label;
  if (const std::size_t slash = name.find_last_of(kFolderSeparators); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  std::string shown(name);
  if (shown.size() > kNameWidth) shown = "..." + shown.substr(shown.size() - (kNameWidth - 3));
  const auto filled = static_cast<int>(fraction * kBarWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kBarWidth - filled), '.');
  return fmt::format("{} {:3.0f}% [{}] {:7.1f} MB/s  ETA {}", shown, fraction * 100, bar, rate / 1e6,
                     format_time_left(left));
}

void ProgressBar::update(std::uint64_t bytes_done) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now < next_) return;
  next_ = now + kInterval;

  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string text = format_line(label_, bytes_done, total_, elapsed);
  const std::size_t width = text.size();
  // Overwrite leftovers of a longer previous line.
  if (width < width_) text.append(width_ - width, ' ');
  text.insert(0, 1, '\r');
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  width_ = std::max(width, width_);
}

void ProgressBar::clear() {
  if (width_ == 0) return;
  const std::string blank = "\r" + std::string(width_, ' ') + "\r";
  std::fwrite(blank.data(), 1, blank.size(), stderr);
  std::fflush(stderr);
  width_ = 0;
}

void ProgressBar::finish() {
  clear();
  enabled_ = false;
}

}  // namespace heapql
