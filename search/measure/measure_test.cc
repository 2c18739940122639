#include "search/measure/measure.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "search/measure/testing/some_configs.h"
#include "search/measure/testing/test_paths.h"
#include "search/measure/torch_reference.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Real templates measured through the real worker against libtorch.
namespace tessel::search {
namespace {

const target::Target kTarget = target::Target::Llvm().WithOption("mcpu", "native");

MeasureOptions Options() {
  MeasureOptions o;
  o.worker_path = testing::RunfilesBinary("measure_worker");
  o.reference = TorchReferenceFn();
  o.build.workers = 2;
  // Generous: the machine may be busy; nothing here is expected to time out.
  o.build.timeout_seconds = 60;
  o.run.timeout_seconds = 60;
  o.run.repeat = 3;
  return o;
}

void ExpectMeasured(const std::vector<MeasureResult>& results, size_t count, int repeat) {
  ASSERT_EQ(results.size(), count);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    EXPECT_EQ(r.error, ErrorKind::kNone) << "config " << i << ": " << r.error_message;
    EXPECT_EQ(r.error_message, "");
    EXPECT_EQ(r.costs.size(), static_cast<size_t>(repeat)) << "config " << i;
    for (double c : r.costs) EXPECT_GT(c, 0) << "config " << i;
    EXPECT_GT(r.build_seconds, 0);
    EXPECT_NEAR(r.timestamp, now, 600);
  }
}

double Seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(MeasureTest, Conv2dNchwcConfigsAreCorrectAndTimed) {
  const Task task{"conv2d_nchwc.x86",
                  {{"n", 1},
                   {"ic", 16},
                   {"h", 14},
                   {"w", 14},
                   {"oc", 32},
                   {"kh", 3},
                   {"kw", 3},
                   {"pad", {1, 1, 1, 1}}},
                  kTarget};
  const std::vector<Config> configs = testing::SomeConfigs(task, 3);
  absl::StatusOr<Measurer> m = Measurer::Create(Options());
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<MeasureResult>> results = m->Measure(task, configs);
  ASSERT_TRUE(results.ok()) << results.status();
  ExpectMeasured(*results, configs.size(), 3);
}

TEST(MeasureTest, DenseConfigsAreCorrectAndTheWorkDirIsLeftClean) {
  const Task task{"dense_pack.x86", {{"m", 8}, {"n", 64}, {"k", 64}}, kTarget};
  const std::vector<Config> configs = testing::SomeConfigs(task, 2);
  MeasureOptions o = Options();
  o.work_dir = std::string(std::getenv("TEST_TMPDIR")) + "/dense_work";
  o.run.repeat = 2;
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<MeasureResult>> results = m->Measure(task, configs);
  ASSERT_TRUE(results.ok()) << results.status();
  ExpectMeasured(*results, configs.size(), 2);
  // A second batch of the same task reuses its inputs and reference.
  results = m->Measure(task, {configs[0]});
  ASSERT_TRUE(results.ok()) << results.status();
  ExpectMeasured(*results, 1, 2);
  // Only the task's inputs and reference remain; every candidate's files are gone.
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(o.work_dir)) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"task0"});
}

TEST(MeasureTest, MinRepeatMsGrowsTheNumberOfCalls) {
  const Task task{"relu.x86", {{"shape", {4096}}}, kTarget};
  const std::vector<Config> configs = testing::SomeConfigs(task, 0);
  MeasureOptions o = Options();
  o.run.repeat = 3;
  o.run.min_repeat_ms = 0;
  absl::StatusOr<Measurer> plain = Measurer::Create(o);
  ASSERT_TRUE(plain.ok());
  absl::StatusOr<std::vector<MeasureResult>> fast;
  const double fast_seconds = Seconds([&] { fast = plain->Measure(task, configs); });
  ASSERT_TRUE(fast.ok()) << fast.status();
  ExpectMeasured(*fast, 1, 3);

  o.run.min_repeat_ms = 100;
  absl::StatusOr<Measurer> grown = Measurer::Create(o);
  ASSERT_TRUE(grown.ok());
  absl::StatusOr<std::vector<MeasureResult>> slow;
  const double slow_seconds = Seconds([&] { slow = grown->Measure(task, configs); });
  ASSERT_TRUE(slow.ok()) << slow.status();
  ExpectMeasured(*slow, 1, 3);
  // A call takes microseconds, so only a grown number makes three repeats last 0.3 s.
  EXPECT_LT((*slow)[0].costs[0], 0.01);
  EXPECT_GE(slow_seconds - (*slow)[0].build_seconds, 0.3);
  EXPECT_GT(slow_seconds, fast_seconds + 0.2);
}

TEST(MeasureTest, CacheFlushMakesAMemoryBoundCallSlower) {
  // 1 MiB in and out: in the caches after a call, in memory after a flush.
  const Task task{"relu.x86", {{"shape", {1 << 18}}}, kTarget};
  const std::vector<Config> configs = testing::SomeConfigs(task, 0);
  MeasureOptions o = Options();
  o.run.threads = 1;
  o.run.number = 2;
  o.run.repeat = 5;
  double min_cost[2];
  for (bool flush : {false, true}) {
    o.run.flush_cache = flush;
    absl::StatusOr<Measurer> m = Measurer::Create(o);
    ASSERT_TRUE(m.ok());
    absl::StatusOr<std::vector<MeasureResult>> results = m->Measure(task, configs);
    ASSERT_TRUE(results.ok()) << results.status();
    ExpectMeasured(*results, 1, 5);
    min_cost[flush] = *std::min_element((*results)[0].costs.begin(), (*results)[0].costs.end());
  }
  EXPECT_GT(min_cost[1], min_cost[0]);
}

}  // namespace
}  // namespace tessel::search
