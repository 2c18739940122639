// Lowering time of a conv2d (ResNet-18's C2: 64x56x56, 64 filters 3x3, padding 1) under a
// 12-primitive schedule: `bazel run --config=opt //compiler/schedule:lower_benchmark`.
#include <benchmark/benchmark.h>

#include "compiler/support/check.h"
#include "compiler/testing/conv2d_schedule.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

void BM_LowerConv2dTwelvePrimitives(benchmark::State& state) {
  const testing::Conv2d w = testing::MakeConv2d(1, 64, 56, 64, 3, 1, 1);
  transforms::LowerOptions options;
  options.verify_each_pass = false;
  for (auto _ : state) {
    Schedule s = testing::TwelvePrimitiveConv2dSchedule(w);
    absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, w.args, "conv2d", options);
    TESSEL_CHECK(f.ok()) << f.status().message();
    benchmark::DoNotOptimize(f->get());
  }
}
BENCHMARK(BM_LowerConv2dTwelvePrimitives)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessel::schedule

BENCHMARK_MAIN();
