// LazyCheck (engine/util/lazy_check.h): a check that threw runs again the
// next time and throws again, and one that passed runs no more. The second
// call after a throw once hung on Windows (std::call_once under MinGW).
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/util/lazy_check.h"

namespace heapql {
namespace {

TEST(LazyCheck, ACheckThatThrewRunsAgainAndOneThatPassedRunsNoMore) {
  int runs = 0;
  bool fail = true;
  const LazyCheck check([&] {
    ++runs;
    if (fail) throw std::runtime_error("damaged");
  });
  EXPECT_TRUE(check.pending());
  EXPECT_THROW(check.run(), std::runtime_error);
  EXPECT_THROW(check.run(), std::runtime_error);
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(check.pending());
  fail = false;
  check.run();
  check.run();
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(check.pending());
}

TEST(LazyCheck, CallersAtTheSameTimeRunItOnce) {
  int runs = 0;
  const LazyCheck check([&] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) callers.emplace_back([&] { check.run(); });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(runs, 1);
}

TEST(LazyCheck, RunAsRunsTheOtherCheckInItsPlace) {
  int own = 0, other = 0;
  const LazyCheck check([&] { ++own; });
  check.run_as([&] { ++other; });
  check.run();
  EXPECT_EQ(own, 0);
  EXPECT_EQ(other, 1);
}

}  // namespace
}  // namespace heapql
