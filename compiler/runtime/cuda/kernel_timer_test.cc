// The kernel timer's contract without relying on how long anything takes: how often it calls,
// how many times it returns, and its errors. The GPU cases run where a driver and a GPU are and
// skip, with the driver's reason, elsewhere.
#include "compiler/runtime/cuda/kernel_timer.h"

#include <gtest/gtest.h>

#include <functional>

#include "compiler/runtime/cuda/driver_api.h"

namespace tessel::runtime::cuda {
namespace {

// The driver with a usable GPU, or why not.
absl::Status GpuHere() {
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  return UseDevice(**api, 0);
}

TEST(KernelTimerTest, BadOptionsAreNamed) {
  TimerOptions options;
  options.repeat = 0;
  absl::StatusOr<std::vector<double>> t = TimeKernel([] { return absl::OkStatus(); }, options);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("TimerOptions.repeat is 0"), std::string::npos) << t.status();
}

TEST(KernelTimerTest, WithoutADriverEveryTimerSaysSo) {
  if (Driver().ok()) GTEST_SKIP() << "this machine has a CUDA driver";
  int calls = 0;
  const std::function<absl::Status()> call = [&] {
    ++calls;
    return absl::OkStatus();
  };
  for (const absl::Status& s : {TimeKernel(call, TimerOptions{}).status(),
                                TimeKernelGraph(call, TimerOptions{}, 20).status(),
                                TimeKernelReplayed(call, TimerOptions{}).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  }
  EXPECT_EQ(calls, 0);
}

TEST(KernelTimerTest, CallsWarmupThenRepeatTimesNumber) {
  if (absl::Status gpu = GpuHere(); !gpu.ok()) GTEST_SKIP() << gpu.message();
  int calls = 0;
  TimerOptions options;
  options.number = 3;
  options.repeat = 4;
  options.warmup = 2;
  absl::StatusOr<std::vector<double>> t = TimeKernel(
      [&] {
        ++calls;
        return absl::OkStatus();
      },
      options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(calls, 2 + 3 * 4);
  ASSERT_EQ(t->size(), 4u);
  for (double s : *t) EXPECT_GE(s, 0.0);
}

TEST(KernelTimerTest, TheCallsErrorStopsTheTiming) {
  if (absl::Status gpu = GpuHere(); !gpu.ok()) GTEST_SKIP() << gpu.message();
  int calls = 0;
  absl::StatusOr<std::vector<double>> t = TimeKernel(
      [&] { return ++calls == 5 ? absl::InternalError("kernel 'k' faulted") : absl::OkStatus(); },
      TimerOptions{});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "kernel 'k' faulted");
  EXPECT_EQ(calls, 5);
}

TEST(KernelTimerTest, AGraphOfNoCallsIsRefused) {
  absl::StatusOr<std::vector<double>> t =
      TimeKernelGraph([] { return absl::OkStatus(); }, TimerOptions{}, 0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("calls_per_graph is 0"), std::string::npos) << t.status();
}

// On a GPU the replayed timing is a graph's, and says so.
TEST(KernelTimerTest, ReplayedOnAGpuSaysItUsedAGraph) {
  if (absl::Status gpu = GpuHere(); !gpu.ok()) GTEST_SKIP() << gpu.message();
  absl::StatusOr<KernelTiming> t = TimeKernelReplayed([] { return absl::OkStatus(); }, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->how, "from a CUDA graph of 20 calls");
}

// One direct call, then the captured ones, each on the timer's stream; the graph launches are
// not calls.
TEST(KernelTimerTest, GraphCapturesItsCallsOnceOnItsStream) {
  if (absl::Status gpu = GpuHere(); !gpu.ok()) GTEST_SKIP() << gpu.message();
  int calls = 0, on_stream = 0;
  TimerOptions options;
  options.number = 3;
  options.repeat = 4;
  options.warmup = 2;
  absl::StatusOr<std::vector<double>> t = TimeKernelGraph(
      [&] {
        ++calls;
        if (CurrentLaunchStream() != nullptr) ++on_stream;
        return absl::OkStatus();
      },
      options, 20);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(calls, 1 + 20);
  EXPECT_EQ(on_stream, 20);
  EXPECT_EQ(CurrentLaunchStream(), nullptr);
  ASSERT_EQ(t->size(), 4u);
}

TEST(KernelTimerTest, ACapturedCallsErrorStopsTheGraph) {
  if (absl::Status gpu = GpuHere(); !gpu.ok()) GTEST_SKIP() << gpu.message();
  int calls = 0;
  absl::StatusOr<std::vector<double>> t = TimeKernelGraph(
      [&] { return ++calls == 3 ? absl::InternalError("kernel 'k' faulted") : absl::OkStatus(); },
      TimerOptions{}, 20);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "kernel 'k' faulted");
  EXPECT_EQ(CurrentLaunchStream(), nullptr);
}

}  // namespace
}  // namespace tessel::runtime::cuda
