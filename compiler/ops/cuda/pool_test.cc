// The GPU pooling templates against libtorch on OpenCL (PoCL, this machine's CPU): max_pool2d
// and avg_pool2d (prime sizes, 1x1 inputs, asymmetric padding, ceil mode, count_include_pad,
// strides larger than the kernel, a 7x7 window), global average and max pooling (7x7 planes,
// single elements, long and odd planes, many planes), with the fallback and 20 random configs
// (all of them where the space is smaller), fused tails, the fallbacks through NVRTC and ptxas
// for sm_90 (skipped without the CUDA toolkit), and argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"
#include "compiler/target/target_facts.h"

namespace tessel::ops::cuda {
namespace {

using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

CheckOptions On(const std::string& target) {
  return {.target = tessel::testing::ParseTarget(target)};
}

OpArgs Pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw) {
  return {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"kh", kh}, {"kw", kw}};
}

OpArgs With(OpArgs args, const OpArgs& extra) {
  for (const auto& [k, v] : extra.items()) args[k] = v;
  return args;
}

std::vector<OpArgs> PoolCases() {
  return {
      With(Pool(1, 64, 112, 112, 3, 3), {{"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}}),
      With(Pool(2, 8, 16, 16, 2, 2), {{"stride", {2, 2}}}),
      With(Pool(1, 3, 13, 17, 3, 3), {{"pad", {1, 1, 1, 1}}}),
      With(Pool(1, 5, 11, 9, 3, 2), {{"pad", {0, 1, 2, 0}}, {"stride", {2, 1}}}),
      With(Pool(2, 3, 10, 12, 4, 3), {{"pad", {1, 0, 0, 2}}, {"stride", {3, 2}}}),
      With(Pool(1, 4, 7, 7, 3, 3), {{"stride", {2, 2}}, {"ceil_mode", true}}),
      With(Pool(1, 4, 8, 10, 3, 3),
           {{"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}, {"ceil_mode", true}}),
      With(Pool(1, 2, 6, 6, 2, 2), {{"stride", {3, 3}}}),
      Pool(3, 2, 1, 1, 1, 1),
      Pool(1, 16, 7, 7, 7, 7),
      With(Pool(1, 3, 5, 37, 1, 3),
           {{"pad", {0, 2, 0, 1}}, {"stride", {1, 2}}, {"ceil_mode", true}}),
  };
}

TEST(GpuPoolTest, MaxFallbackOnOpenCl) {
  for (const OpArgs& args : PoolCases()) {
    absl::Status s = CheckFallback(testing::GetTemplate("max_pool2d.gpu"), args, On("opencl"));
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(GpuPoolTest, AvgFallbackOnOpenCl) {
  for (const OpArgs& base : PoolCases()) {
    for (bool include : {false, true}) {
      const OpArgs args = With(base, {{"count_include_pad", include}});
      absl::Status s = CheckFallback(testing::GetTemplate("avg_pool2d.gpu"), args, On("opencl"));
      EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
    }
  }
}

TEST(GpuPoolTest, RandomConfigsOnOpenCl) {
  const OpArgs args = With(Pool(2, 3, 15, 28, 3, 3),
                           {{"pad", {1, 0, 1, 1}}, {"ceil_mode", true}, {"stride", {2, 1}}});
  absl::Status s =
      CheckRandomConfigs(testing::GetTemplate("max_pool2d.gpu"), args, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
  s = CheckRandomConfigs(testing::GetTemplate("avg_pool2d.gpu"),
                         With(args, {{"count_include_pad", true}}), 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

std::vector<OpArgs> GlobalCases() {
  return {
      {{"n", 1}, {"c", 512}, {"h", 7}, {"w", 7}},  // ResNet's last layer
      {{"n", 2}, {"c", 3}, {"h", 1}, {"w", 1}},    // one element per plane
      {{"n", 1}, {"c", 8}, {"h", 56}, {"w", 56}},  // long planes
      {{"n", 3}, {"c", 5}, {"h", 13}, {"w", 17}},  // odd planes
      {{"n", 4}, {"c", 300}, {"h", 3}, {"w", 2}},  // many short planes
  };
}

TEST(GpuPoolTest, GlobalFallbackOnOpenCl) {
  for (const std::string name : {"global_avg_pool2d.gpu", "global_max_pool2d.gpu"}) {
    for (const OpArgs& args : GlobalCases()) {
      absl::Status s = CheckFallback(testing::GetTemplate(name), args, On("opencl"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(GpuPoolTest, GlobalRandomConfigsOnOpenCl) {
  for (const std::string name : {"global_avg_pool2d.gpu", "global_max_pool2d.gpu"}) {
    for (const OpArgs& args : {OpArgs{{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}},
                               OpArgs{{"n", 1}, {"c", 3}, {"h", 40}, {"w", 40}}}) {
      absl::Status s = CheckRandomConfigs(testing::GetTemplate(name), args, 20, On("opencl"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(GpuPoolTest, FusedTailsOnOpenCl) {
  const OpArgs pool = With(Pool(2, 3, 9, 10, 3, 3), {{"pad", {1, 1, 0, 1}}, {"stride", {2, 2}}});
  for (const std::string name : {"max_pool2d.gpu", "avg_pool2d.gpu"}) {
    absl::Status s =
        testing::CheckTailRandomConfigs(testing::GetTemplate(name), pool, 4, On("opencl"));
    EXPECT_TRUE(s.ok()) << name << ": " << s;
  }
  const OpArgs global = {{"n", 2}, {"c", 5}, {"h", 6}, {"w", 7}};
  for (const std::string name : {"global_avg_pool2d.gpu", "global_max_pool2d.gpu"}) {
    absl::Status s =
        testing::CheckTailRandomConfigs(testing::GetTemplate(name), global, 4, On("opencl"));
    EXPECT_TRUE(s.ok()) << name << ": " << s;
  }
}

TEST(GpuPoolTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const OpArgs pool = PoolCases()[0];
  EXPECT_TRUE(
      CheckFallback(testing::GetTemplate("max_pool2d.gpu"), pool, On("cuda -arch=sm_90")).ok());
  EXPECT_TRUE(CheckFallback(testing::GetTemplate("avg_pool2d.gpu"),
                            With(pool, {{"count_include_pad", true}}), On("cuda -arch=sm_90"))
                  .ok());
  for (const std::string name : {"global_avg_pool2d.gpu", "global_max_pool2d.gpu"}) {
    for (const OpArgs& args : GlobalCases()) {
      absl::Status s = CheckFallback(testing::GetTemplate(name), args, On("cuda -arch=sm_90"));
      EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
    }
  }
}

search::Config Fallback(const std::string& name, const OpArgs& args, const std::string& target) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
  absl::StatusOr<search::ConfigSpace> space = testing::GetTemplate(name).space(args, facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return testing::GetTemplate(name).fallback(*space, args, facts);
}

TEST(GpuPoolTest, GlobalFallbackKnobs) {
  // 7 x 7 planes: a block of 32 threads per plane; 56 x 56: 256; 3 x 2: a thread per plane.
  search::Config c = Fallback("global_avg_pool2d.gpu", GlobalCases()[0], "cuda -arch=sm_90");
  EXPECT_EQ(c.knob("block_per_row"), 1);
  EXPECT_EQ(c.knob("threads"), 32);
  c = Fallback("global_max_pool2d.gpu", GlobalCases()[2], "opencl");
  EXPECT_EQ(c.knob("threads"), 256);
  c = Fallback("global_max_pool2d.gpu", GlobalCases()[4], "opencl");
  EXPECT_EQ(c.knob("block_per_row"), 0);
}

void ExpectError(const std::string& name, const OpArgs& args, const std::string& key) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  absl::StatusOr<search::ConfigSpace> space = testing::GetTemplate(name).space(args, facts);
  ASSERT_FALSE(space.ok()) << name << " " << args.dump();
  EXPECT_NE(space.status().message().find(name + ": "), std::string::npos)
      << space.status().message();
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
      << space.status().message();
}

TEST(GpuPoolTest, ArgumentErrors) {
  ExpectError("max_pool2d.gpu", {{"n", 1}, {"c", 1}, {"h", 4}, {"w", 4}, {"kh", 2}}, "kw");
  ExpectError("max_pool2d.gpu", With(Pool(1, 1, 4, 4, 2, 2), {{"pad", {2, 0, 0, 0}}}), "pad");
  ExpectError("avg_pool2d.gpu", Pool(1, 1, 2, 2, 5, 1), "kh");
  ExpectError("avg_pool2d.gpu", With(Pool(1, 1, 4, 4, 2, 2), {{"stride", {0, 1}}}), "stride");
  ExpectError("avg_pool2d.gpu", With(Pool(1, 1, 4, 4, 2, 2), {{"count_include_pad", 3}}),
              "count_include_pad");
  ExpectError("global_avg_pool2d.gpu", {{"n", 1}, {"c", 0}, {"h", 4}, {"w", 4}}, "c");
  ExpectError("global_max_pool2d.gpu", {{"n", 1}, {"c", 2}, {"h", 4}}, "w");
  for (const std::string name : {"max_pool2d.gpu", "global_avg_pool2d.gpu"}) {
    absl::StatusOr<search::ConfigSpace> space =
        testing::GetTemplate(name).space(Pool(1, 1, 4, 4, 2, 2), target::TargetFacts{});
    ASSERT_FALSE(space.ok());
    EXPECT_NE(space.status().message().find(name + ": needs a GPU target"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::cuda
