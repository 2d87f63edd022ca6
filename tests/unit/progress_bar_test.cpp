// Tests for ProgressBar: the text of the bar, and that it stays quiet when
// stderr is not a terminal.
#include "engine/ingest/progress_bar.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace heapql {
namespace {

TEST(ProgressBar, FormatsPercentBarRateAndTimeLeft) {
  EXPECT_EQ(ProgressBar::format_line("/tmp/traces/app.heaptrack.zst", 50'000'000, 100'000'000, 10.0),
            "app.heaptrack.zst  50% [##########..........]     5.0 MB/s  ETA 0:10");
}

TEST(ProgressBar, FormatsHoursOfTimeLeft) {
  EXPECT_EQ(ProgressBar::format_line("big.etl", 1'000'000, 4'000'000'000, 1.0),
            "big.etl   0% [....................]     1.0 MB/s  ETA 1:06:39");
}

TEST(ProgressBar, TimeLeftUnknownWithoutARate) {
  EXPECT_EQ(ProgressBar::format_line("a.csv", 0, 1000, 0.0), "a.csv   0% [....................]     0.0 MB/s  ETA --:--");
}

TEST(ProgressBar, DoneBeyondTotalIsAFullBar) {
  EXPECT_EQ(ProgressBar::format_line("a.csv", 2000, 1000, 1.0), "a.csv 100% [####################]     0.0 MB/s  ETA 0:00");
}

TEST(ProgressBar, LongNamesKeepTheirEnd) {
  const std::string line =
      ProgressBar::format_line("dir/a-very-long-trace-file-name-indeed.heaptrack.gz", 1, 2, 1.0);
  EXPECT_EQ(line.rfind("...-name-indeed.heaptrack.gz ", 0), 0u) << line;
}

TEST(ProgressBar, QuietWhenStderrIsNotATerminal) {
  if (::isatty(STDERR_FILENO)) GTEST_SKIP() << "stderr is a terminal";
  ProgressBar bar("a.csv", 1000, true);
  EXPECT_FALSE(bar.enabled());
  testing::internal::CaptureStderr();
  bar.update(500);
  bar.clear();
  bar.finish();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressBar, DisabledWithoutASize) {
  ProgressBar bar("pipe", 0, true);
  EXPECT_FALSE(bar.enabled());
}

}  // namespace
}  // namespace heapql
