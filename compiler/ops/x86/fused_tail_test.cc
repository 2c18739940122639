// Templates with a fused element-wise tail (Template::instantiate_with_tail) against libtorch plus
// the same tail on the host: the fallback and random configs of each template that takes one.
// The shapes cover each template's partial tiles (blocks, vectors or tiles that overhang the
// output) so that the tail's reads at logical indices are checked where guards or clamps apply.
#include <gtest/gtest.h>

#include "compiler/ops/testing/conv_args.h"
#include "compiler/ops/testing/tail_check.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckTailRandomConfigs;
using testing::SquareConvArgs;

void ExpectTail(const std::string& name, const std::vector<OpArgs>& cases, int configs) {
  const Template& t = testing::GetTemplate(name);
  for (const OpArgs& args : cases) {
    absl::Status s = CheckTailRandomConfigs(t, args, configs);
    EXPECT_TRUE(s.ok()) << s;
  }
}

OpArgs With(OpArgs args, const OpArgs& extra) {
  for (const auto& [k, v] : extra.items()) args[k] = v;
  return args;
}

OpArgs Pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw) {
  return {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"kh", kh}, {"kw", kw}};
}

TEST(FusedTailTest, Conv2dNchwc) {
  // Padded 3x3, strided, and a 1x1 with channels that do not fill a vector.
  ExpectTail("conv2d_nchwc.x86",
             {SquareConvArgs(16, 9, 32, 3, 1, 1), SquareConvArgs(8, 10, 16, 3, 2, 1),
              SquareConvArgs(12, 6, 20, 1, 1, 0)},
             6);
}

TEST(FusedTailTest, Conv2dMultilevel) {
  ExpectTail("conv2d_multilevel.x86",
             {SquareConvArgs(16, 9, 32, 3, 1, 1), SquareConvArgs(8, 10, 16, 3, 2, 1)}, 6);
}

TEST(FusedTailTest, DepthwiseConv2dNchwc) {
  // Padded, strided, and channels that do not fill a vector.
  ExpectTail("depthwise_conv2d_nchwc.x86",
             {SquareConvArgs(32, 12, 32, 3, 1, 1, 32), SquareConvArgs(16, 11, 16, 3, 2, 1, 16),
              SquareConvArgs(24, 7, 24, 5, 1, 2, 24)},
             6);
}

TEST(FusedTailTest, Conv2dWinograd) {
  // Output rows and columns that F(4x4) tiles overhang, and channels that leave a padded block.
  ExpectTail("conv2d_winograd.x86",
             {SquareConvArgs(16, 8, 16, 3, 1, 1), SquareConvArgs(20, 9, 20, 3, 1, 1),
              SquareConvArgs(8, 7, 24, 3, 1, 0)},
             6);
}

TEST(FusedTailTest, Conv2dNchw) {
  ExpectTail("conv2d_nchw.x86",
             {SquareConvArgs(12, 9, 8, 3, 2, 1, 4), SquareConvArgs(16, 9, 16, 3, 1, 1),
              SquareConvArgs(6, 7, 10, 1, 1, 0)},
             6);
}

TEST(FusedTailTest, ConvTransposeNchwc) {
  ExpectTail("conv2d_transpose_nchwc.x86",
             {{{"n", 1},
               {"ic", 16},
               {"h", 5},
               {"w", 5},
               {"oc", 8},
               {"kh", 4},
               {"kw", 4},
               {"stride", {2, 2}},
               {"pad", {1, 1, 1, 1}},
               {"output_padding", {0, 0}}}},
             6);
}

TEST(FusedTailTest, DensePack) {
  // With and without bias; m and n that the tiles overhang.
  ExpectTail("dense_pack.x86",
             {{{"m", 8}, {"n", 48}, {"k", 40}, {"bias", true}},
              {{"m", 5}, {"n", 37}, {"k", 19}, {"bias", true}},
              {{"m", 3}, {"n", 40}, {"k", 24}}},
             8);
}

TEST(FusedTailTest, Multilevel) {
  ExpectTail("dense_multilevel.x86", {{{"m", 6}, {"n", 40}, {"k", 24}, {"bias", true}}}, 6);
  ExpectTail("batch_matmul_multilevel.x86", {{{"batch", 2}, {"m", 12}, {"n", 16}, {"k", 20}}}, 6);
}

TEST(FusedTailTest, MatmulTiled) {
  ExpectTail("matmul_tiled.x86",
             {{{"m", 19}, {"n", 48}, {"k", 23}}, {{"m", 4}, {"n", 21}, {"k", 9}}}, 8);
}

TEST(FusedTailTest, BatchMatmulTiled) {
  // The tail's bias broadcasts over the logical axis 1: the rows m here.
  ExpectTail("batch_matmul_tiled.x86",
             {{{"batch", 3}, {"m", 11}, {"n", 24}, {"k", 13}},
              {{"batch", 2}, {"m", 4}, {"n", 19}, {"k", 8}}},
             8);
}

std::vector<OpArgs> PoolCases() {
  return {
      With(Pool(1, 8, 20, 20, 3, 3), {{"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}}),
      With(Pool(2, 3, 16, 16, 2, 2), {{"stride", {2, 2}}}),
      With(Pool(1, 3, 13, 17, 3, 3), {{"pad", {1, 1, 1, 1}}}),
      With(Pool(1, 2, 7, 7, 3, 3), {{"stride", {2, 2}}, {"ceil_mode", true}}),
      // ow = 47: no divisor fills a vector, so vec_ow includes a ragged one (16).
      With(Pool(1, 2, 9, 49, 3, 3), {{"stride", {1, 1}}}),
  };
}

TEST(FusedTailTest, MaxPool2d) { ExpectTail("max_pool2d.x86", PoolCases(), 6); }

TEST(FusedTailTest, AvgPool2d) {
  std::vector<OpArgs> cases = PoolCases();
  cases.push_back(With(cases[0], {{"count_include_pad", true}}));
  ExpectTail("avg_pool2d.x86", cases, 6);
}

TEST(FusedTailTest, GlobalAvgPool2d) {
  ExpectTail("global_avg_pool2d.x86",
             {{{"n", 2}, {"c", 8}, {"h", 7}, {"w", 7}}, {{"n", 1}, {"c", 3}, {"h", 5}, {"w", 3}}},
             6);
}

TEST(FusedTailTest, GlobalMaxPool2d) {
  ExpectTail("global_max_pool2d.x86",
             {{{"n", 2}, {"c", 8}, {"h", 7}, {"w", 7}}, {{"n", 1}, {"c", 3}, {"h", 5}, {"w", 3}}},
             6);
}

TEST(FusedTailTest, TemplatesWithoutTailSayso) {
  absl::Status s = testing::CheckTailConfig(testing::GetTemplate("transpose.x86"),
                                            {{"shape", {2, 3}}}, search::Config());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
}

}  // namespace
}  // namespace tessel::ops::x86
