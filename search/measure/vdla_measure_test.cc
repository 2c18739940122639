#include "search/measure/vdla_measure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/support/check.h"
#include "compiler/target/target_facts.h"
#include "search/measure/torch_reference.h"
#include "search/tuner/tuner.h"

namespace tessel::search {
namespace {

using ::testing::HasSubstr;

// 32 -> 32 channels, 8x8, 3x3 pad 1, on VDLA.
Task SmallTask() {
  return Task{.template_name = "conv2d_int8.vdla",
              .args = {{"n", 1},
                       {"ic", 32},
                       {"h", 8},
                       {"w", 8},
                       {"oc", 32},
                       {"kh", 3},
                       {"kw", 3},
                       {"stride", {1, 1}},
                       {"pad", {1, 1, 1, 1}}},
              .target = *target::Target::Parse("vdla")};
}

Config Knobs(const Task& task, int tile_h, int tile_o, int vthreads, int double_buffer) {
  ConfigSpace space = *Space(task, *target::DescribeTarget(task.target));
  absl::StatusOr<Config> c = space.FromJson({{"knobs",
                                              {{"tile_h", tile_h},
                                               {"tile_o", tile_o},
                                               {"vthreads", vthreads},
                                               {"vthread_axis", 0},
                                               {"double_buffer", double_buffer}}}});
  TESSEL_CHECK(c.ok()) << c.status();
  return *c;
}

TEST(VdlaMeasureTest, CostsAreSimulatedCyclesAndOverflowsAreResourceLimits) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  const Task task = SmallTask();
  // Tiles of 2 rows x 1 channel block, on one thread and on two with double-buffered kernels.
  const std::vector<Config> configs = {Knobs(task, 2, 1, 1, 0), Knobs(task, 2, 1, 2, 1)};
  absl::StatusOr<std::vector<MeasureResult>> results = measure(task, configs);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const MeasureResult& r = (*results)[i];
    ASSERT_EQ(r.error, ErrorKind::kNone) << r.error_message;
    ASSERT_EQ(r.costs.size(), 1u);
    // Cycles at 200 MHz: at least the GEMM steps (32 x 32 x 64 x 9 MACs / 256 per cycle).
    EXPECT_GE(r.costs[0] * 200e6, 32.0 * 32 * 64 * 9 / 256);
    EXPECT_GT(r.timestamp, 0);
  }
  // Two threads with double-buffered kernels hide loads: fewer cycles than one thread.
  EXPECT_LT((*results)[1].costs[0], (*results)[0].costs[0]);
  // The same config measures the same (deterministic).
  absl::StatusOr<std::vector<MeasureResult>> again = measure(task, {configs[0]});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->at(0).costs, (*results)[0].costs);
}

// The requantizing tail on the ALU (bias added, shifted, clipped, with and without relu) agrees
// with libtorch's conv2d_int8 bit for bit, on one thread and on two with double buffering.
TEST(VdlaMeasureTest, RequantizedLayersMatchTheReference) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  for (const bool relu : {false, true}) {
    Task task = SmallTask();
    task.args["shift"] = 9;
    task.args["relu"] = relu;
    absl::StatusOr<std::vector<MeasureResult>> r =
        measure(task, {Knobs(task, 2, 1, 1, 0), Knobs(task, 2, 2, 2, 1)});
    ASSERT_TRUE(r.ok()) << r.status();
    for (const MeasureResult& m : *r) EXPECT_EQ(m.error, ErrorKind::kNone) << m.error_message;
  }
}

TEST(VdlaMeasureTest, BuffersThatDoNotFitAreAResourceLimit) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  Task task = SmallTask();
  task.args["h"] = 64;
  task.args["w"] = 64;
  task.args["oc"] = 64;
  // 64 rows x 64 columns x 4 blocks: 16384 accumulator entries; the buffer holds 2048.
  absl::StatusOr<std::vector<MeasureResult>> r = measure(task, {Knobs(task, 64, 4, 1, 0)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->at(0).error, ErrorKind::kResourceLimit);
  EXPECT_THAT(r->at(0).error_message,
              HasSubstr("entries of vdla.acc beside 0 in use, and it holds"));
  EXPECT_TRUE(r->at(0).costs.empty());
}

TEST(VdlaMeasureTest, OutputsUnlikeTheReferenceAreWrongAnswers) {
  ReferenceFn torch = TorchReferenceFn();
  ReferenceFn off_by_one = [torch](const Task& task, const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    absl::StatusOr<std::vector<runtime::NDArray>> want = torch(task, in);
    if (want.ok()) (*want)[0].data<int8_t>()[5] += 1;
    return want;
  };
  MeasureFn measure = VdlaMeasureFn({.reference = off_by_one});
  const Task task = SmallTask();
  absl::StatusOr<std::vector<MeasureResult>> r = measure(task, {Knobs(task, 2, 1, 1, 0)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->at(0).error, ErrorKind::kWrongAnswer);
  EXPECT_THAT(r->at(0).error_message, HasSubstr("the reference"));
}

// dense_int8.vdla on extents that are not in blocks (padded by the template): every valid config
// of its space (all fit the buffers at this size) is the reference's product bit for bit.
TEST(VdlaMeasureTest, DenseLayersMatchTheReferenceInEveryConfig) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  for (const bool requantized : {false, true}) {
    Task task{.template_name = "dense_int8.vdla",
              .args = {{"m", 2}, {"n", 40}, {"k", 72}},
              .target = *target::Target::Parse("vdla")};
    if (requantized) {
      task.args["shift"] = 7;
      task.args["relu"] = true;
    }
    const ConfigSpace space = *Space(task, *target::DescribeTarget(task.target));
    std::vector<Config> all;
    for (int64_t i = 0; i < space.size(); ++i) {
      absl::StatusOr<Config> c = space.Get(i);
      ASSERT_TRUE(c.ok()) << c.status();
      if (space.Validate(*c).ok()) all.push_back(*c);
    }
    ASSERT_GE(all.size(), 10u);
    absl::StatusOr<std::vector<MeasureResult>> r = measure(task, all);
    ASSERT_TRUE(r.ok()) << r.status();
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ((*r)[i].error, ErrorKind::kNone)
          << all[i].ToJson().dump() << ": " << (*r)[i].error_message;
    }
  }
}

TEST(VdlaMeasureTest, TuningByCyclesFindsAValidConfig) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  TunerOptions options;
  options.cost_model = "";
  options.explorer = "random";
  options.trials = 6;
  options.seed = 3;
  absl::StatusOr<TuneResult> result = Tune(SmallTask(), options, measure);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->trials, 6);
  ASSERT_TRUE(result->best.has_value());
  EXPECT_GT(result->best_gflops, 0);
}

TEST(VdlaMeasureTest, TasksItCannotMeasureAreErrors) {
  MeasureFn measure = VdlaMeasureFn({.reference = TorchReferenceFn()});
  Task llvm = SmallTask();
  llvm.target = *target::Target::Parse("llvm");
  EXPECT_THAT(measure(llvm, {}).status().message(), HasSubstr("is not a vdla target"));
  MeasureFn no_reference = VdlaMeasureFn({});
  EXPECT_THAT(no_reference(SmallTask(), {}).status().message(), HasSubstr("no reference given"));
}

}  // namespace
}  // namespace tessel::search
