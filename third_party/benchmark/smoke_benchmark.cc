// A benchmark that sums a vector, so `bazel run` of this target shows Google Benchmark working.
#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

static void BM_VectorSum(benchmark::State& state) {
  std::vector<float> values(state.range(0), 1.0f);
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::accumulate(values.begin(), values.end(), 0.0f));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_VectorSum)->Arg(1 << 10)->Arg(1 << 16);
