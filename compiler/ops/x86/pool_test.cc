// The pooling templates against libtorch: max_pool2d and avg_pool2d (prime sizes, 1x1 inputs,
// asymmetric padding, ceil mode, count_include_pad, strides larger than the kernel), global
// average and max pooling, random configs, and argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckFallback;
using testing::CheckRandomConfigs;

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

TEST(PoolTest, MaxFallback) {
  for (const OpArgs& args : PoolCases()) {
    absl::Status s = CheckFallback(testing::GetTemplate("max_pool2d.x86"), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(PoolTest, AvgFallback) {
  for (const OpArgs& base : PoolCases()) {
    for (bool include : {false, true}) {
      const OpArgs args = With(base, {{"count_include_pad", include}});
      absl::Status s = CheckFallback(testing::GetTemplate("avg_pool2d.x86"), args);
      EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
    }
  }
}

TEST(PoolTest, RandomConfigs) {
  const OpArgs args = With(Pool(2, 3, 15, 28, 3, 3),
                           {{"pad", {1, 0, 1, 1}}, {"ceil_mode", true}, {"stride", {2, 1}}});
  absl::Status s = CheckRandomConfigs(testing::GetTemplate("max_pool2d.x86"), args, 20);
  EXPECT_TRUE(s.ok()) << s;
  s = CheckRandomConfigs(testing::GetTemplate("avg_pool2d.x86"),
                         With(args, {{"count_include_pad", true}}), 20);
  EXPECT_TRUE(s.ok()) << s;
  // Column stride 2: the phase-split pad stage, wherever it is computed.
  const OpArgs strided = With(Pool(1, 3, 11, 31, 3, 3),
                              {{"pad", {1, 1, 0, 1}}, {"stride", {2, 2}}, {"ceil_mode", true}});
  s = CheckRandomConfigs(testing::GetTemplate("max_pool2d.x86"), strided, 20);
  EXPECT_TRUE(s.ok()) << s;
  s = CheckRandomConfigs(testing::GetTemplate("avg_pool2d.x86"), strided, 20);
  EXPECT_TRUE(s.ok()) << s;
  // A prime width: a ragged vector of columns.
  const OpArgs prime = With(Pool(1, 2, 9, 37, 3, 3), {{"pad", {1, 1, 1, 1}}});
  s = CheckRandomConfigs(testing::GetTemplate("max_pool2d.x86"), prime, 20);
  EXPECT_TRUE(s.ok()) << s;
  s = CheckRandomConfigs(testing::GetTemplate("avg_pool2d.x86"), prime, 20);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(PoolTest, Global) {
  const std::vector<OpArgs> cases = {{{"n", 1}, {"c", 512}, {"h", 7}, {"w", 7}},
                                     {{"n", 2}, {"c", 3}, {"h", 1}, {"w", 1}},
                                     {{"n", 1}, {"c", 5}, {"h", 13}, {"w", 17}},
                                     {{"n", 2}, {"c", 16}, {"h", 56}, {"w", 56}},
                                     {{"n", 1}, {"c", 1}, {"h", 2}, {"w", 3}}};
  for (const std::string op : {"global_avg_pool2d.x86", "global_max_pool2d.x86"}) {
    for (const OpArgs& args : cases) {
      absl::Status s = CheckFallback(testing::GetTemplate(op), args);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
    absl::Status s =
        CheckRandomConfigs(testing::GetTemplate(op), {{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}}, 20);
    EXPECT_TRUE(s.ok()) << op << ": " << s;
  }
}

void ExpectError(const std::string& name, const OpArgs& args, const std::string& key) {
  absl::StatusOr<search::ConfigSpace> space =
      testing::GetTemplate(name).space(args, target::TargetFacts{});
  ASSERT_FALSE(space.ok()) << name << " " << args.dump();
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
      << space.status().message();
}

TEST(PoolTest, ArgumentErrors) {
  const OpArgs ok = Pool(1, 2, 8, 8, 3, 3);
  for (const std::string op : {"max_pool2d.x86", "avg_pool2d.x86"}) {
    OpArgs missing = ok;
    missing.erase("c");
    ExpectError(op, missing, "c");
    ExpectError(op, With(ok, {{"kh", 0}}), "kh");
    ExpectError(op, With(ok, {{"kw", 9}}), "kw");
    ExpectError(op, With(ok, {{"h", 2}}), "kh");
    ExpectError(op, With(ok, {{"stride", {0, 1}}}), "stride");
    ExpectError(op, With(ok, {{"stride", {1}}}), "stride");
    ExpectError(op, With(ok, {{"pad", {1, 1, 3, 1}}}), "pad");
    ExpectError(op, With(ok, {{"pad", {-1, 0, 0, 0}}}), "pad");
    ExpectError(op, With(ok, {{"ceil_mode", 3}}), "ceil_mode");
  }
  ExpectError("avg_pool2d.x86", With(ok, {{"count_include_pad", "yes"}}), "count_include_pad");
  ExpectError("global_avg_pool2d.x86", {{"n", 1}, {"c", 2}, {"h", 3}}, "w");
  ExpectError("global_max_pool2d.x86", {{"n", 1}, {"c", -2}, {"h", 3}, {"w", 3}}, "c");
}

}  // namespace
}  // namespace tessel::ops::x86
