// Google Benchmark: a registered benchmark runs and reports iterations and counters.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

void BM_Spin(benchmark::State& state) {
  int sum = 0;
  for (auto _ : state) {
    for (int i = 0; i < state.range(0); ++i) benchmark::DoNotOptimize(sum += i);
  }
  state.counters["work"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_Spin)->Arg(64)->MinTime(0.01);

// Keeps every run the library reports, so the test can look at them.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) runs_.push_back(run);
  }
  const std::vector<Run>& runs() const { return runs_; }

 private:
  std::vector<Run> runs_;
};

TEST(BenchmarkSmokeTest, RegisteredBenchmarkRunsAndReports) {
  int argc = 1;
  char arg0[] = "benchmark_smoke_test";
  char* argv[] = {arg0, nullptr};
  benchmark::Initialize(&argc, argv);
  CollectingReporter reporter;
  size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  ASSERT_EQ(ran, 1u);
  ASSERT_EQ(reporter.runs().size(), 1u);
  const auto& run = reporter.runs()[0];
  EXPECT_EQ(run.benchmark_name(), "BM_Spin/64/min_time:0.010");
  EXPECT_GT(run.iterations, 0);
  EXPECT_GT(run.real_accumulated_time, 0.0);
  EXPECT_EQ(run.counters.at("work").value, 64.0);
}

}  // namespace
