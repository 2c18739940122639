// matmul_tiled.x86 and batch_matmul_tiled.x86 against libtorch: both packing choices, awkward
// shapes (primes, m = 1, k not a multiple of the vector width, batch 3), random configs and
// argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

OpArgs Mm(int64_t m, int64_t n, int64_t k) { return {{"m", m}, {"n", n}, {"k", k}}; }
OpArgs Bmm(int64_t b, int64_t m, int64_t n, int64_t k) {
  return {{"batch", b}, {"m", m}, {"n", n}, {"k", k}};
}

// The fallback with pack_b forced to `pack`.
absl::Status CheckPacking(const Template& t, const OpArgs& args, int pack) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::WithTolerance(2e-3).target);
  if (!facts.ok()) return facts.status();
  absl::StatusOr<search::ConfigSpace> space = t.space(args, *facts);
  if (!space.ok()) return space.status();
  nlohmann::json j = t.fallback(*space, args, *facts).ToJson();
  j.erase("index");
  j["knobs"]["pack_b"] = pack;
  absl::StatusOr<search::Config> config = space->FromJson(j);
  if (!config.ok()) return config.status();
  if (absl::Status s = space->Validate(*config); !s.ok()) return s;
  return testing::CheckConfig(t, args, *config, testing::WithTolerance(2e-3));
}

TEST(MatmulTiledTest, FallbackShapes) {
  for (const OpArgs& args : {Mm(128, 128, 128), Mm(1, 64, 300), Mm(7, 13, 17), Mm(1, 1, 1),
                             Mm(37, 29, 31), Mm(64, 100, 3)}) {
    absl::Status s = testing::CheckFallback(testing::GetTemplate("matmul_tiled.x86"), args,
                                            testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(MatmulTiledTest, BothPackingChoices) {
  const Template& t = testing::GetTemplate("matmul_tiled.x86");
  for (const OpArgs& args : {Mm(40, 64, 33), Mm(1, 32, 19)}) {
    for (int pack : {0, 1}) {
      absl::Status s = CheckPacking(t, args, pack);
      EXPECT_TRUE(s.ok()) << "pack_b=" << pack << ": " << s;
    }
  }
}

TEST(MatmulTiledTest, PackingFilter) {
  // Column tiles that do not divide n need the packed (zero-padded) b.
  const Template& t = testing::GetTemplate("matmul_tiled.x86");
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(testing::WithTolerance(2e-3).target);
  ASSERT_TRUE(facts.ok());
  absl::StatusOr<search::ConfigSpace> space = t.space(Mm(8, 13, 8), *facts);
  ASSERT_TRUE(space.ok());
  absl::StatusOr<search::Config> c = space->FromJson(
      {{"knobs",
        {{"tile_y", {1, 1, 8}}, {"tile_x", {2, 1, 8}}, {"tile_k", {8, 1}}, {"pack_b", 0}}}});
  ASSERT_TRUE(c.ok()) << c.status();
  absl::Status s = space->Validate(*c);
  EXPECT_THAT(s.message(), HasSubstr("pack_b"));
  absl::StatusOr<OpProgram> p = t.instantiate(*c, Mm(8, 13, 8), *facts);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("pack_b"));
}

TEST(MatmulTiledTest, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("matmul_tiled.x86"),
                                               Mm(19, 48, 23), 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BatchMatmulTiledTest, FallbackShapes) {
  for (const OpArgs& args : {Bmm(3, 7, 13, 17), Bmm(3, 1, 64, 40), Bmm(2, 64, 64, 64),
                             Bmm(5, 31, 1, 9), Bmm(1, 1, 1, 1)}) {
    absl::Status s = testing::CheckFallback(testing::GetTemplate("batch_matmul_tiled.x86"), args,
                                            testing::WithTolerance(2e-3));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(BatchMatmulTiledTest, BothPackingChoicesAndRandomConfigs) {
  const Template& t = testing::GetTemplate("batch_matmul_tiled.x86");
  for (int pack : {0, 1}) {
    absl::Status s = CheckPacking(t, Bmm(3, 9, 32, 21), pack);
    EXPECT_TRUE(s.ok()) << "pack_b=" << pack << ": " << s;
  }
  absl::Status s =
      testing::CheckRandomConfigs(t, Bmm(3, 11, 24, 13), 20, testing::WithTolerance(2e-3));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BatchMatmulTiledTest, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  absl::StatusOr<search::ConfigSpace> s =
      testing::GetTemplate("batch_matmul_tiled.x86").space(Mm(2, 2, 2), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'batch'"));
  s = testing::GetTemplate("batch_matmul_tiled.x86").space(Bmm(2, 2, -1, 2), facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'n'"));
  s = testing::GetTemplate("matmul_tiled.x86").space({{"m", 2}, {"n", 2}, {"k", "x"}}, facts);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("'k'"));
}

}  // namespace
}  // namespace tessel::ops
