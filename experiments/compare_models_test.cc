// CompareModels on Fig. 4's RNN cell, fusion off against on: both checked against the per-node
// libtorch reference, each in a timing worker of its own, timed round robin; a variant whose outputs
// differ is an error naming it; bad options and a libtorch variant without a libtorch version
// are errors naming them. (The libtorch side on a whole network: cli/model_commands_test.cc's
// `bench model dqn`.)
#include "experiments/compare_models.h"

#include <absl/status/status.h>
#include <gtest/gtest.h>

#include <cmath>


namespace tessel::experiments {
namespace {

std::vector<ModelVariant> FusionOffOn() {
  return {{.name = "no_fusion", .compile = {.optimize_graph = true, .fuse = false}},
          {.name = "fusion", .compile = {.optimize_graph = true, .fuse = true}}};
}

TEST(CompareModelsTest, ChecksThenTimesEveryVariantInTurn) {
  CompareOptions options;
  options.threads = 1;
  options.repeat = 5;
  options.warmup = 1;
  options.min_repeat_ms = 2;
  absl::StatusOr<ModelComparison> c = CompareModels("rnn_cell", FusionOffOn(), options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->network, "rnn_cell");
  EXPECT_EQ(c->reference, "the graph evaluated node by node by libtorch");
  EXPECT_TRUE(c->target.Option("mcpu").has_value()) << c->target;
  ASSERT_EQ(c->variants.size(), 2u);
  EXPECT_EQ(c->variants[0].name, "no_fusion");
  EXPECT_EQ(c->variants[1].name, "fusion");
  // dense, dense, add, tanh: four kernels apart, two fused (the second dense takes add + tanh).
  EXPECT_EQ(c->variants[0].steps, 4);
  EXPECT_EQ(c->variants[0].fused_steps, 0);
  EXPECT_EQ(c->variants[1].steps, 2);
  EXPECT_EQ(c->variants[1].fused_steps, 1);
  for (const VariantTiming& v : c->variants) {
    EXPECT_FALSE(v.libtorch);
    ASSERT_EQ(v.seconds.size(), 5u) << v.name;
    for (double s : v.seconds) EXPECT_TRUE(std::isfinite(s) && s > 0) << v.name;
    // A cell runs in microseconds: a 2 ms repeat takes many runs.
    EXPECT_GT(v.runs_per_repeat, 1) << v.name;
    EXPECT_GT(v.kernels, 0) << v.name;
    EXPECT_EQ(v.tuned_kernels, 0) << v.name;
    // The other variant's process used no more than a core while this one was timed.
    EXPECT_GE(v.max_interference, 0) << v.name;
    EXPECT_LE(v.max_interference, 1.5) << v.name;
  }
  EXPECT_TRUE(std::isfinite(PairedSpeedup(c->variants[0], c->variants[1])));
  EXPECT_DOUBLE_EQ(PairedSpeedup(c->variants[0], c->variants[0]), 1.0);
}

TEST(CompareModelsTest, PairedSpeedupIsTheMedianRatioOfARound) {
  VariantTiming base, v;
  base.seconds = {2, 4, 6};
  v.seconds = {1, 1, 3};  // ratios 2, 4, 2
  EXPECT_DOUBLE_EQ(PairedSpeedup(base, v), 2.0);
  EXPECT_DOUBLE_EQ(PairedSpeedup(v, base), 0.5);
  EXPECT_TRUE(std::isnan(PairedSpeedup(VariantTiming{}, VariantTiming{})));
}

TEST(CompareModelsTest, DifferentOutputsNameTheVariant) {
  runtime::NDArray want = runtime::NDArray::Empty({2, 3}, {kDLFloat, 32, 1});
  for (int i = 0; i < 6; ++i) want.data<float>()[i] = static_cast<float>(i);
  runtime::NDArray got = runtime::NDArray::Empty({2, 3}, {kDLFloat, 32, 1});
  for (int i = 0; i < 6; ++i) got.data<float>()[i] = static_cast<float>(i);
  EXPECT_TRUE(CheckSameOutputs("net", "v", {got}, "libtorch", {want}, {}).ok());
  got.data<float>()[4] += 0.5f;
  absl::Status s = CheckSameOutputs("net", "fused", {got}, "libtorch", {want}, {});
  EXPECT_TRUE(absl::IsInternal(s)) << s;
  EXPECT_NE(s.message().find("net: variant 'fused' differs from libtorch: "), std::string::npos)
      << s;
}

TEST(CompareModelsTest, ErrorsNameWhatIsWrong) {
  CompareOptions options;
  options.repeat = 0;
  absl::Status s = CompareModels("rnn_cell", FusionOffOn(), options).status();
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("repeat must be >= 1"), std::string::npos) << s;

  options.repeat = 5;
  options.threads = 0;
  s = CompareModels("rnn_cell", FusionOffOn(), options).status();
  EXPECT_NE(s.message().find("threads must be >= 1"), std::string::npos) << s;

  options.threads = 1;
  s = CompareModels("rnn_cell", {}, options).status();
  EXPECT_NE(s.message().find("no variants"), std::string::npos) << s;

  s = CompareModels("gru_cell", FusionOffOn(), options).status();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("unknown network 'gru_cell'"), std::string::npos) << s;

  s = CompareModels("rnn_cell", {{.name = "torch", .libtorch = true}}, options).status();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("no torch network 'rnn_cell'"), std::string::npos) << s;

  options.target = *target::Target::Parse("llvm -mtriple=aarch64-linux-gnu");
  s = CompareModels("rnn_cell", FusionOffOn(), options).status();
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace tessel::experiments
