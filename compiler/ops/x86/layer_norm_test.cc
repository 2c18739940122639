// layer_norm.x86 against libtorch (at::layer_norm): the last axis (short, prime, BERT's rows),
// several trailing axes, rank 1, rows of one element, random configs; rows of a large mean
// against a double-precision evaluation; argument errors naming the key.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::ops::x86 {
namespace {

const Template& Get() {
  absl::StatusOr<const Template*> t = FindTemplate("layer_norm.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

TEST(LayerNormTest, Fallback) {
  const std::vector<OpArgs> cases = {
      {{"shape", {4, 768}}},
      {{"shape", {1, 128, 768}}, {"epsilon", 1e-12}},
      {{"shape", {3, 7}}},
      {{"shape", {2, 3, 37}}, {"axis", -1}},
      {{"shape", {2, 5, 33}}, {"axis", 1}},
      {{"shape", {2, 3, 4, 5}}, {"axis", 0}},
      {{"shape", {17}}},
      {{"shape", {5, 1}}},
  };
  for (const OpArgs& args : cases) {
    absl::Status s = testing::CheckFallback(Get(), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(LayerNormTest, RandomConfigs) {
  for (const OpArgs& args :
       {OpArgs{{"shape", {3, 75}}}, OpArgs{{"shape", {3, 5, 40}}, {"axis", 1}}}) {
    absl::Status s = testing::CheckRandomConfigs(Get(), args, 20);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

// Rows of mean 1000 and spread 4 against a double-precision evaluation by hand: in float32,
// E[x^2] - mean^2 would lose about two digits of the variance to 1e6's rounding step (0.06 of a
// variance near 5); the variance around the mean keeps them.
TEST(LayerNormTest, LargeMeanAgainstDouble) {
  constexpr int kRows = 3, kK = 256;
  const OpArgs args = {{"shape", {kRows, kK}}};
  const target::Target on = testing::CheckOptions().target;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(on);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<Instantiated> inst = InstantiateFallback(Get(), args, *facts);
  ASSERT_TRUE(inst.ok()) << inst.status();
  absl::StatusOr<std::optional<runtime::Function>> compiled =
      testing::CompileToCheck(inst->program, on);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled->has_value()) return;
  std::vector<runtime::NDArray> inputs = testing::RandomInputs(inst->program.logical_inputs, 7);
  float* x = inputs[0].data<float>();
  for (int i = 0; i < kRows * kK; ++i) x[i] += 1000.0f;
  absl::StatusOr<std::vector<runtime::NDArray>> got =
      testing::RunLogical(inst->program, **compiled, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  const float* gamma = inputs[1].data<float>();
  const float* beta = inputs[2].data<float>();
  for (int r = 0; r < kRows; ++r) {
    const float* row = x + r * kK;
    double mean = 0, var = 0;
    for (int j = 0; j < kK; ++j) mean += row[j];
    mean /= kK;
    for (int j = 0; j < kK; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= kK;
    for (int j = 0; j < kK; ++j) {
      const double want = (row[j] - mean) / std::sqrt(var + 1e-5) * gamma[j] + beta[j];
      ASSERT_NEAR((*got)[0].data<float>()[r * kK + j], want, 1e-3) << "row " << r << " at " << j;
    }
  }
}

TEST(LayerNormTest, ArgumentErrors) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {OpArgs::object(), "shape"},
      {{{"shape", OpArgs::array()}}, "shape"},
      {{{"shape", {2, 0}}}, "shape"},
      {{{"shape", {2, 3}}, {"axis", 2}}, "axis"},
      {{{"shape", {2, 3}}, {"axis", -3}}, "axis"},
      {{{"shape", {2, 3}}, {"epsilon", -1}}, "epsilon"},
      {{{"shape", {2, 3}}, {"epsilon", "small"}}, "epsilon"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space = Get().space(args, target::TargetFacts{});
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::x86
