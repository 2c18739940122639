// The GPU layer_norm template against libtorch on OpenCL (PoCL, this machine's CPU): BERT's rows
// of 768, odd rows, normalizing over one trailing axis and over two, a single row, rows of one
// element, a thread per row and a block per row, with the fallback and 20 random configs (all of
// them where the space is smaller), the fallbacks through NVRTC and ptxas for sm_90 (skipped
// without the CUDA toolkit), and argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/target/target_facts.h"

namespace tessel::ops::cuda {
namespace {

using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

constexpr char kName[] = "layer_norm.gpu";

const Template& Get() {
  absl::StatusOr<const Template*> t = FindTemplate(kName);
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

CheckOptions On(const std::string& target) {
  return {.target = tessel::testing::ParseTarget(target)};
}

std::vector<OpArgs> Cases() {
  return {
      {{"shape", {4, 768}}},                  // BERT-base rows: a block per row
      {{"shape", {2, 3, 37}}, {"axis", -1}},  // short odd rows: a thread per row
      {{"shape", {2, 5, 33}}, {"axis", 1}},   // over two axes: rows of 165, a ragged last step
      {{"shape", {17}}},                      // one row
      {{"shape", {3, 1}}},                    // rows of one element: variance 0
      {{"shape", {1, 128, 768}}},             // a sequence of 128 tokens
  };
}

TEST(GpuLayerNormTest, FallbackOnOpenCl) {
  for (const OpArgs& args : Cases()) {
    absl::Status s = CheckFallback(Get(), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(GpuLayerNormTest, RandomConfigsOnOpenCl) {
  for (const OpArgs& args : {OpArgs{{"shape", {7, 300}}, {"epsilon", 0.01}},
                             OpArgs{{"shape", {2, 5, 33}}, {"axis", 1}}}) {
    absl::Status s = CheckRandomConfigs(Get(), args, 20, On("opencl"));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(GpuLayerNormTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  for (const OpArgs& args : {Cases()[0], Cases()[1], Cases()[5]}) {
    absl::Status s = CheckFallback(Get(), args, On("cuda -arch=sm_90"));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

search::Config Fallback(const OpArgs& args, const std::string& target) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
  absl::StatusOr<search::ConfigSpace> space = Get().space(args, facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return Get().fallback(*space, args, facts);
}

TEST(GpuLayerNormTest, FallbackKnobs) {
  search::Config c = Fallback(Cases()[0], "cuda -arch=sm_90");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  EXPECT_EQ(c.knob("threads"), 256);
  c = Fallback({{"shape", {8, 100}}}, "opencl");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  EXPECT_EQ(c.knob("threads"), 32);
  // Rows of 165 elements over two axes are long enough for a block.
  c = Fallback(Cases()[2], "opencl");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  // Rows shorter than 64: a thread per row.
  c = Fallback(Cases()[1], "cuda -arch=sm_90");
  EXPECT_EQ(c.knob("block_per_row"), 0);
  EXPECT_EQ(c.knob("threads"), 256);
}

TEST(GpuLayerNormTest, ArgumentErrors) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {OpArgs::object(), "shape"},
      {{{"shape", OpArgs::array()}}, "shape"},
      {{{"shape", {2, 0}}}, "shape"},
      {{{"shape", {2, 3}}, {"axis", 2}}, "axis"},
      {{{"shape", {2, 3}}, {"axis", -3}}, "axis"},
      {{{"shape", {2, 3}}, {"epsilon", -1e-5}}, "epsilon"},
      {{{"shape", {2, 3}}, {"epsilon", "small"}}, "epsilon"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space = Get().space(args, facts);
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find(std::string(kName) + ": "), std::string::npos)
        << space.status().message();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
  absl::StatusOr<search::ConfigSpace> space = Get().space({{"shape", {4}}}, target::TargetFacts{});
  ASSERT_FALSE(space.ok());
  EXPECT_NE(space.status().message().find("needs a GPU target"), std::string::npos);
}

}  // namespace
}  // namespace tessel::ops::cuda
