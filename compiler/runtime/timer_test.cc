#include "compiler/runtime/timer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

// The machines running these tests are shared and noisy: every bound on time below is one a
// sleep guarantees (a sleep never ends early) or is loose by a factor of several.
namespace tessel::runtime {
namespace {

using ::testing::Each;
using ::testing::Ge;
using ::testing::SizeIs;

void SleepMs(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

TEST(TimerTest, CallsWarmupPlusRepeatTimesNumber) {
  for (const TimerOptions& options : {TimerOptions{}, TimerOptions{3, 4, 0, 0},
                                      TimerOptions{1, 1, 0, 2}, TimerOptions{5, 2, 0, 3}}) {
    int calls = 0;
    absl::StatusOr<std::vector<double>> seconds = TimeRepeats([&] { ++calls; }, options);
    ASSERT_TRUE(seconds.ok()) << seconds.status();
    EXPECT_EQ(calls, options.warmup + options.repeat * options.number);
    EXPECT_THAT(*seconds, SizeIs(options.repeat));
    EXPECT_THAT(*seconds, Each(Ge(0.0)));
  }
}

TEST(TimerTest, RecordsTheMeanPerRun) {
  absl::StatusOr<std::vector<double>> seconds =
      TimeRepeats([] { SleepMs(1); }, TimerOptions{.number = 3, .repeat = 2, .warmup = 0});
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_THAT(*seconds, SizeIs(2));
  EXPECT_THAT(*seconds, Each(Ge(1e-3)));
}

TEST(TimerTest, MinRepeatGrowsTheNumberOfRuns) {
  // A 1 ms sleep cannot fill 50 ms alone, so number grows past 1; the timed repeats then run
  // repeat * number >= 2 * repeat times after the warm-up and at least one calibration batch.
  int calls = 0;
  const TimerOptions options{.number = 1, .repeat = 3, .min_repeat_ms = 50, .warmup = 1};
  absl::StatusOr<std::vector<double>> seconds = TimeRepeats(
      [&] {
        ++calls;
        SleepMs(1);
      },
      options);
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_THAT(*seconds, SizeIs(3));
  EXPECT_THAT(*seconds, Each(Ge(1e-3)));
  EXPECT_GE(calls, 1 + 1 + 3 * 2);
}

TEST(TimerTest, MinRepeatGrowsAFastCallableFarEnough) {
  // Growth stops once a batch lasts 5 ms; each run of a no-op is far below that, so many runs
  // are needed and the per-run mean is tiny.
  int64_t calls = 0;
  absl::StatusOr<std::vector<double>> seconds =
      TimeRepeats([&] { ++calls; }, {.number = 1, .repeat = 2, .min_repeat_ms = 5, .warmup = 0});
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_GT(calls, 100);
  EXPECT_THAT(*seconds, Each(Ge(0.0)));
}

TEST(TimerTest, InterleavedRatioOfTwoSleeps) {
  int a_calls = 0, b_calls = 0;
  std::vector<char> order;
  absl::StatusOr<Interleaved> timing = TimeInterleaved(
      [&] {
        ++a_calls;
        order.push_back('a');
        SleepMs(2);
      },
      [&] {
        ++b_calls;
        order.push_back('b');
        SleepMs(1);
      },
      TimerOptions{.number = 2, .repeat = 7, .warmup = 1});
  ASSERT_TRUE(timing.ok()) << timing.status();
  EXPECT_EQ(a_calls, 1 + 7 * 2);
  EXPECT_EQ(b_calls, 1 + 7 * 2);
  EXPECT_EQ(std::string(order.begin(), order.begin() + 6), "abaabb");
  EXPECT_THAT(timing->a_seconds, SizeIs(7));
  EXPECT_THAT(timing->b_seconds, SizeIs(7));
  EXPECT_THAT(timing->a_seconds, Each(Ge(2e-3)));
  EXPECT_THAT(timing->b_seconds, Each(Ge(1e-3)));
  // Ideally 0.5: b sleeps half as long as a, so a is the slower one.
  EXPECT_GT(timing->median_ratio, 0.2);
  EXPECT_LT(timing->median_ratio, 0.95);
}

TEST(TimerTest, BadOptionsNameTheField) {
  struct Case {
    TimerOptions options;
    const char* message;
  };
  const Case cases[] = {
      {{.number = 0}, "TimerOptions.number is 0; it must be >= 1"},
      {{.repeat = -1}, "TimerOptions.repeat is -1; it must be >= 1"},
      {{.warmup = -2}, "TimerOptions.warmup is -2; it must be >= 0"},
      {{.min_repeat_ms = -0.5}, "TimerOptions.min_repeat_ms is -0.5; it must be >= 0"},
      {{.min_repeat_ms = std::nan("")}, "TimerOptions.min_repeat_ms is nan; it must be >= 0"},
  };
  for (const Case& c : cases) {
    int calls = 0;
    absl::StatusOr<std::vector<double>> repeats = TimeRepeats([&] { ++calls; }, c.options);
    EXPECT_EQ(repeats.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(repeats.status().message(), c.message);
    absl::StatusOr<Interleaved> interleaved =
        TimeInterleaved([&] { ++calls; }, [&] { ++calls; }, c.options);
    EXPECT_EQ(interleaved.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(interleaved.status().message(), c.message);
    EXPECT_EQ(calls, 0);
  }
}

TEST(TimerTest, Median) {
  EXPECT_EQ(Median({3}), 3);
  EXPECT_EQ(Median({5, 1, 3}), 3);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({2, 2, 1, 9, 9}), 2);
  EXPECT_EQ(Median({1, std::nan(""), 3}), 2);
  EXPECT_TRUE(std::isnan(Median({})));
  EXPECT_TRUE(std::isnan(Median({std::nan("")})));
}

}  // namespace
}  // namespace tessel::runtime
