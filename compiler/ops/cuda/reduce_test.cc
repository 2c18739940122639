// The GPU reduction templates against libtorch on OpenCL (PoCL, this machine's CPU): every
// operator of the table on trailing axes, on axes in the middle (strided reads), on every axis,
// without keepdims; the fallback and random configs; the fallbacks through NVRTC and ptxas for
// sm_90 (skipped without the CUDA toolkit); argument errors naming the key.
#include "compiler/ops/nn/reduce.h"

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
      {{"shape", {4, 96}}, {"axes", {-1}}},                              // rows
      {{"shape", {2, 8, 7, 5}}, {"axes", {2, 3}}, {"keepdims", false}},  // planes
      {{"shape", {3, 17, 6}}, {"axes", {1}}},                            // a middle axis
      {{"shape", {5, 3}}, {"axes", {0, 1}}, {"keepdims", true}},         // everything
      {{"shape", {2, 3, 4, 9}}, {"axes", {0}}, {"keepdims", false}},     // the first axis
  };
}

TEST(GpuReduceTest, FallbackOnOpenCl) {
  for (const nn::ReduceOp& op : nn::ReduceOps()) {
    for (const OpArgs& args : Cases()) {
      absl::Status s =
          CheckFallback(testing::GetTemplate(std::string(op.name) + ".gpu"), args, On("opencl"));
      EXPECT_TRUE(s.ok()) << op.name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(GpuReduceTest, RandomConfigsOnOpenCl) {
  for (const char* name : {"reduce_mean.gpu", "reduce_max.gpu", "reduce_log_sum_exp.gpu"}) {
    absl::Status s = CheckRandomConfigs(testing::GetTemplate(name), Cases()[2], 10, On("opencl"));
    EXPECT_TRUE(s.ok()) << name << ": " << s;
  }
}

TEST(GpuReduceTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  for (const char* name : {"reduce_sum.gpu", "reduce_log_sum_exp.gpu"}) {
    absl::Status s = CheckFallback(testing::GetTemplate(name), Cases()[2], On("cuda -arch=sm_90"));
    EXPECT_TRUE(s.ok()) << name << ": " << s;
  }
}

TEST(GpuReduceTest, ArgumentErrors) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {OpArgs::object(), "shape"},
      {{{"shape", {2, 3}}, {"axes", {2}}}, "axes"},
      {{{"shape", {2, 3, 4}}, {"axes", {0, 2}}}, "axes"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space =
        testing::GetTemplate("reduce_sum.gpu").space(args, facts);
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find("reduce_sum.gpu: "), std::string::npos)
        << space.status().message();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::cuda
