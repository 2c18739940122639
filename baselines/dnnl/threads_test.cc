// SetDnnlThreads limits the threads oneDNN runs on, and the speed oneDNN reaches on Table 2's
// C2, C6 and D1 with one and two threads (logged, not asserted).
#include <absl/strings/str_format.h>
#include <dirent.h>
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "baselines/dnnl/conv2d.h"
#include "compiler/runtime/timer.h"
#include "workloads/table2.h"

namespace tessel::baselines {
namespace {

// The threads of this process now.
int ProcessThreads() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

runtime::NDArray Random(std::vector<int64_t> shape, uint32_t seed) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), {kDLFloat, 32, 1});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = uniform(rng);
  return a;
}

std::unique_ptr<DnnlConv2d> Ready(const workloads::Layer& layer) {
  absl::StatusOr<std::unique_ptr<DnnlConv2d>> conv =
      DnnlConv2d::Create(workloads::Conv2dArgs(layer));
  EXPECT_TRUE(conv.ok()) << conv.status();
  if (!conv.ok()) return nullptr;
  const absl::Status set = (*conv)->SetInputs(
      Random({1, layer.ic, layer.h, layer.w}, 1),
      Random({layer.oc, layer.kind == workloads::LayerKind::kDepthwise ? 1 : layer.ic, layer.k,
              layer.k},
             2));
  EXPECT_TRUE(set.ok()) << set;
  return std::move(*conv);
}

// OpenMP starts its worker threads at the first parallel region that needs them and keeps them,
// so the thread count of the process shows how many threads oneDNN ran on. This test must run
// before anything else in the process has started a parallel region.
TEST(DnnlThreadsTest, SetDnnlThreadsLimitsTheWorkers) {
  std::cout << DnnlRuntimeDescription() << std::endl;
  const workloads::Layer layer = *workloads::FindLayer("C6");
  const int before = ProcessThreads();
  ASSERT_GT(before, 0);

  SetDnnlThreads(1);
  EXPECT_EQ(DnnlThreads(), 1);
  std::unique_ptr<DnnlConv2d> conv = Ready(layer);
  ASSERT_NE(conv, nullptr);
  for (int i = 0; i < 3; ++i) conv->Run();
  EXPECT_EQ(ProcessThreads(), before) << "oneDNN started threads although limited to one";

  SetDnnlThreads(2);
  EXPECT_EQ(DnnlThreads(), 2);
  conv = Ready(layer);
  ASSERT_NE(conv, nullptr);
  for (int i = 0; i < 3; ++i) conv->Run();
  EXPECT_EQ(ProcessThreads(), before + 1) << "two threads: the caller and one OpenMP worker";
}

TEST(DnnlThreadsTest, LogGflopsOnTable2Layers) {
  for (const int threads : {1, 2}) {
    SetDnnlThreads(threads);
    for (const char* name : {"C2", "C6", "D1"}) {
      const workloads::Layer layer = *workloads::FindLayer(name);
      std::unique_ptr<DnnlConv2d> conv = Ready(layer);
      ASSERT_NE(conv, nullptr);
      absl::StatusOr<std::vector<double>> seconds = runtime::TimeRepeats(
          [&] { conv->Run(); }, {.number = 1, .repeat = 7, .min_repeat_ms = 50, .warmup = 3});
      ASSERT_TRUE(seconds.ok()) << seconds.status();
      const double median = runtime::Median(*seconds);
      std::cout << absl::StrFormat("oneDNN %-3s %d thread(s): %8.3f ms  %7.1f GFLOPS  %s  %s\n",
                                   name, threads, median * 1e3, conv->flops() / median * 1e-9,
                                   conv->implementation(), conv->formats());
    }
  }
}

}  // namespace
}  // namespace tessel::baselines
