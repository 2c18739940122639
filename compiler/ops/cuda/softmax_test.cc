// The GPU softmax and log_softmax templates against libtorch on OpenCL (PoCL, this machine's
// CPU): every axis of a few shapes (a last axis of 1000, odd rows, single elements, axes in
// the middle and first), a thread per row and a block per row, with the fallback and 20 random
// configs (all of them where the space is smaller), the fallbacks through NVRTC and ptxas for
// sm_90 (skipped without the CUDA toolkit), and argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/target/target_facts.h"

namespace tessel::ops::cuda {
namespace {

using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

CheckOptions On(const std::string& target) {
  return {.target = tessel::testing::ParseTarget(target)};
}

std::vector<OpArgs> Cases() {
  return {
      {{"shape", {4, 1000}}},  // classifier rows: a block per row
      {{"shape", {1, 1000}}, {"axis", 1}},
      {{"shape", {3, 5, 7}}, {"axis", -1}},     // short rows: a thread per row
      {{"shape", {3, 5, 7}}, {"axis", 1}},      // the middle axis
      {{"shape", {6, 9, 4}}, {"axis", 0}},      // the first axis
      {{"shape", {2, 16, 7, 7}}, {"axis", 1}},  // channels of 7 x 7 planes
      {{"shape", {1}}, {"axis", 0}},            // one element
      {{"shape", {5, 1}}, {"axis", -1}},        // rows of one element
      {{"shape", {64, 129}}},                   // a ragged last step of the threads
      {{"shape", {2, 3, 4096}}},                // long rows
  };
}

TEST(GpuSoftmaxTest, FallbackOnOpenCl) {
  for (const std::string name : {"softmax.gpu", "log_softmax.gpu"}) {
    for (const OpArgs& args : Cases()) {
      absl::Status s = CheckFallback(testing::GetTemplate(name), args, On("opencl"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(GpuSoftmaxTest, RandomConfigsOnOpenCl) {
  for (const std::string name : {"softmax.gpu", "log_softmax.gpu"}) {
    for (const OpArgs& args :
         {OpArgs{{"shape", {7, 300}}}, OpArgs{{"shape", {5, 37, 3}}, {"axis", 1}}}) {
      absl::Status s = CheckRandomConfigs(testing::GetTemplate(name), args, 20, On("opencl"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(GpuSoftmaxTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  for (const std::string name : {"softmax.gpu", "log_softmax.gpu"}) {
    for (const OpArgs& args : {Cases()[0], Cases()[3], Cases()[9]}) {
      absl::Status s = CheckFallback(testing::GetTemplate(name), args, On("cuda -arch=sm_90"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

search::Config Fallback(const OpArgs& args, const std::string& target) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
  absl::StatusOr<search::ConfigSpace> space =
      testing::GetTemplate("softmax.gpu").space(args, facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return testing::GetTemplate("softmax.gpu").fallback(*space, args, facts);
}

TEST(GpuSoftmaxTest, FallbackKnobs) {
  search::Config c = Fallback(Cases()[0], "cuda -arch=sm_90");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  EXPECT_EQ(c.knob("threads"), 256);
  c = Fallback({{"shape", {8, 100}}}, "opencl");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  EXPECT_EQ(c.knob("threads"), 32);
  // Not the last axis: a thread per (outer, inner) position.
  c = Fallback(Cases()[5], "opencl");
  EXPECT_EQ(c.knob("block_per_row"), 0);
}

TEST(GpuSoftmaxTest, ArgumentErrors) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {OpArgs::object(), "shape"},
      {{{"shape", OpArgs::array()}}, "shape"},
      {{{"shape", {2, 0}}}, "shape"},
      {{{"shape", {2, 3}}, {"axis", 2}}, "axis"},
      {{{"shape", {2, 3}}, {"axis", -3}}, "axis"},
  };
  for (const std::string name : {"softmax.gpu", "log_softmax.gpu"}) {
    for (const auto& [args, key] : cases) {
      absl::StatusOr<search::ConfigSpace> space = testing::GetTemplate(name).space(args, facts);
      ASSERT_FALSE(space.ok()) << args.dump();
      EXPECT_NE(space.status().message().find(name + ": "), std::string::npos)
          << space.status().message();
      EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
          << space.status().message();
    }
    absl::StatusOr<search::ConfigSpace> space =
        testing::GetTemplate(name).space({{"shape", {4}}}, target::TargetFacts{});
    ASSERT_FALSE(space.ok());
    EXPECT_NE(space.status().message().find("needs a GPU target"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessel::ops::cuda
