// The data-movement templates against libtorch: concatenate, reshape, flatten, transpose, pad,
// layout_transform and cast on awkward shapes, random configs, and argument errors naming the key;
// cast also on chosen values against hand-computed results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckFallback;
using testing::CheckRandomConfigs;

void ExpectFallback(const std::string& name, const std::vector<OpArgs>& cases) {
  for (const OpArgs& args : cases) {
    absl::Status s = CheckFallback(testing::GetTemplate(name), args);
    EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
  }
}

void ExpectRandom(const std::string& name, const OpArgs& args) {
  absl::Status s = CheckRandomConfigs(testing::GetTemplate(name), args, 20);
  EXPECT_TRUE(s.ok()) << name << " " << args.dump() << ": " << s;
}

void ExpectError(const std::string& name, const OpArgs& args, const std::string& key) {
  absl::StatusOr<search::ConfigSpace> space =
      testing::GetTemplate(name).space(args, target::TargetFacts{});
  ASSERT_FALSE(space.ok()) << name << " " << args.dump();
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
      << space.status().message();
}

TEST(TransformTest, Concatenate) {
  ExpectFallback("concatenate.x86", {{{"shapes", {{2, 3, 5}, {4, 3, 5}}}, {"axis", 0}},
                                     {{"shapes", {{2, 3, 5}, {2, 7, 5}, {2, 1, 5}}}, {"axis", 1}},
                                     {{"shapes", {{2, 3, 5}, {2, 3, 13}}}, {"axis", -1}},
                                     {{"shapes", {{1, 16, 7, 7}, {1, 32, 7, 7}}}, {"axis", 1}},
                                     {{"shapes", {{5}}}, {"axis", 0}},
                                     {{"shapes", {{3}, {1}, {17}}}, {"axis", 0}}});
  ExpectRandom("concatenate.x86", {{"shapes", {{2, 3, 40}, {2, 5, 40}}}, {"axis", 1}});
  ExpectRandom("concatenate.x86", {{"shapes", {{3, 9}, {3, 20}}}, {"axis", 1}});
}

TEST(TransformTest, ReshapeAndFlatten) {
  ExpectFallback("reshape.x86",
                 {{{"shape", {2, 3, 4, 5}}, {"newshape", {6, -1}}},
                  {{"shape", {6, 20}}, {"newshape", {2, 3, 4, 5}}},
                  {{"shape", {7, 11}}, {"newshape", {77}}},
                  {{"shape", {1, 64, 1, 1}}, {"newshape", {64}}},
                  {{"shape", {4, 6}}, {"newshape", {3, 8}}},
                  {{"shape", {2, 3, 17}}, {"newshape", {-1, 2, 17}}},
                  {{"shape", {13}}, {"newshape", {1, 13, 1}}},
                  // Other element types move as they are (an int64 mask).
                  {{"shape", {2, 9}}, {"newshape", {2, 1, 1, 9}}, {"dtype", "int64"}},
                  {{"shape", {3, 5}}, {"newshape", {15}}, {"dtype", "int32"}},
                  {{"shape", {4, 3}}, {"newshape", {3, 4}}, {"dtype", "float64"}}});
  ExpectRandom("reshape.x86", {{"shape", {4, 6, 10}}, {"newshape", {3, 8, 10}}});
  ExpectRandom("reshape.x86", {{"shape", {5, 21}}, {"newshape", {3, 35}}});
  ExpectFallback("flatten.x86", {{{"shape", {2, 3, 4, 5}}},
                                 {{"shape", {2, 3, 4, 5}}, {"axis", 0}},
                                 {{"shape", {2, 3, 4, 5}}, {"axis", 2}},
                                 {{"shape", {2, 3, 4, 5}}, {"axis", 4}},
                                 {{"shape", {1, 512, 7, 7}}}});
  ExpectRandom("flatten.x86", {{"shape", {3, 7, 5}}, {"axis", 2}});
}

TEST(TransformTest, Transpose) {
  ExpectFallback("transpose.x86", {{{"shape", {2, 3, 4}}, {"axes", {2, 0, 1}}},
                                   {{"shape", {2, 3, 4}}, {"axes", {0, 2, 1}}},
                                   {{"shape", {2, 3, 17}}, {"axes", {1, 0, 2}}},
                                   {{"shape", {5, 7}}, {"axes", {1, 0}}},
                                   {{"shape", {5, 7}}, {"axes", {-1, -2}}},
                                   {{"shape", {1, 8, 3, 5}}, {"axes", {0, 2, 3, 1}}},
                                   {{"shape", {11}}, {"axes", {0}}}});
  ExpectRandom("transpose.x86", {{"shape", {6, 5, 33}}, {"axes", {1, 0, 2}}});
  ExpectRandom("transpose.x86", {{"shape", {6, 35}}, {"axes", {1, 0}}});
}

TEST(TransformTest, Pad) {
  ExpectFallback(
      "pad.x86",
      {{{"shape", {1, 3, 5, 7}}, {"pad_before", {0, 0, 1, 2}}, {"pad_after", {0, 0, 3, 0}}},
       {{"shape", {2, 3, 17}},
        {"pad_before", {1, 0, 0}},
        {"pad_after", {0, 2, 0}},
        {"value", -1.5}},
       {{"shape", {9}}, {"pad_before", {4}}, {"pad_after", {5}}, {"value", 2}},
       {{"shape", {2, 2}}, {"pad_before", {0, 0}}, {"pad_after", {0, 0}}},
       {{"shape", {1, 3, 5, 7}},
        {"pad_before", {0, 0, 1, 2}},
        {"pad_after", {0, 0, 3, 0}},
        {"mode", "edge"}},
       {{"shape", {2, 3, 17}},
        {"pad_before", {1, 2, 0}},
        {"pad_after", {0, 1, 0}},
        {"mode", "edge"}},
       {{"shape", {1, 3, 5, 7}},
        {"pad_before", {0, 0, 1, 2}},
        {"pad_after", {0, 0, 4, 6}},
        {"mode", "reflect"}},
       {{"shape", {9}}, {"pad_before", {8}}, {"pad_after", {3}}, {"mode", "reflect"}}});
  ExpectRandom("pad.x86", {{"shape", {2, 5, 19}},
                           {"pad_before", {0, 1, 3}},
                           {"pad_after", {1, 0, 2}},
                           {"mode", "reflect"}});
  ExpectRandom("pad.x86",
               {{"shape", {2, 5, 19}}, {"pad_before", {0, 1, 3}}, {"pad_after", {1, 0, 2}}});
  ExpectRandom("pad.x86",
               {{"shape", {3, 4, 40}}, {"pad_before", {1, 2, 0}}, {"pad_after", {0, 1, 0}}});
}

TEST(TransformTest, LayoutTransform) {
  ExpectFallback("layout_transform.x86",
                 {{{"shape", {1, 32, 5, 7}}, {"src", "NCHW"}, {"dst", "NCHW16c"}},
                  {{"shape", {2, 2, 3, 3, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW"}},
                  {{"shape", {1, 4, 3, 5, 8}}, {"src", "NCHW8c"}, {"dst", "NCHW16c"}},
                  {{"shape", {2, 2, 3, 5, 32}}, {"src", "NCHW32c"}, {"dst", "NCHW8c"}},
                  {{"shape", {1, 16, 3, 5, 3}}, {"src", "NCHW3c"}, {"dst", "NCHW16c"}},
                  {{"shape", {1, 3, 3, 5, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW12c"}},
                  {{"shape", {2, 3, 5, 7}}, {"src", "NCHW"}, {"dst", "NHWC"}},
                  {{"shape", {32, 16, 3, 3}}, {"src", "OIHW"}, {"dst", "OIHW8i16o"}},
                  {{"shape", {2, 2, 3, 3, 8, 16}}, {"src", "OIHW8i16o"}, {"dst", "OIHW"}},
                  {{"shape", {1, 6, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHW3c"}}});
  ExpectRandom("layout_transform.x86",
               {{"shape", {1, 32, 5, 7}}, {"src", "NCHW"}, {"dst", "NCHW8c"}});
  ExpectRandom("layout_transform.x86",
               {{"shape", {1, 2, 5, 7, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW"}});
  ExpectRandom("layout_transform.x86",
               {{"shape", {1, 2, 5, 7, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW4c"}});
}

OpArgs Cast(std::vector<int64_t> shape, const std::string& from, const std::string& to) {
  return {{"shape", shape}, {"from", from}, {"to", to}};
}

// The fallback program of cast.x86 for args on the test target, compiled; nullopt (and the test
// stops) where the target does not run here.
std::optional<std::pair<OpProgram, runtime::Function>> CompiledCast(const OpArgs& args) {
  const target::Target on = testing::CheckOptions().target;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(on);
  EXPECT_TRUE(facts.ok()) << facts.status();
  if (!facts.ok()) return std::nullopt;
  absl::StatusOr<Instantiated> inst =
      InstantiateFallback(testing::GetTemplate("cast.x86"), args, *facts);
  EXPECT_TRUE(inst.ok()) << inst.status();
  if (!inst.ok()) return std::nullopt;
  absl::StatusOr<std::optional<runtime::Function>> f = testing::CompileToCheck(inst->program, on);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok() || !f->has_value()) return std::nullopt;
  return std::make_pair(inst->program, **f);
}

// Against libtorch's x.to(type), inputs drawn from [-100, 100) (int64 to int32: past int32's
// range, so the wrap is compared too). The comparison is exact for integer results, so a float
// to integer cast that rounded instead of truncating fails it; the program's output must also
// be of the `to` type (libtorch's values would match a float32 result of int32 -> int64).
TEST(TransformTest, Cast) {
  const std::vector<OpArgs> cases = {
      Cast({2, 3, 17}, "float32", "int32"),   Cast({1000}, "int64", "float32"),
      Cast({7, 11}, "int32", "int64"),        Cast({3, 5, 7}, "float32", "float64"),
      Cast({4, 33}, "int64", "int32"),        Cast({5, 9}, "float64", "float32"),
      Cast({6}, "float64", "int64"),          Cast({2, 3}, "int32", "int32"),
      Cast({1, 64, 7, 7}, "int32", "float32")};
  ExpectFallback("cast.x86", cases);
  ExpectRandom("cast.x86", Cast({3, 7, 29}, "float32", "int32"));
  ExpectRandom("cast.x86", Cast({5, 21}, "int64", "float32"));
  ExpectRandom("cast.x86", Cast({4, 40}, "int32", "int64"));
  ExpectRandom("cast.x86", Cast({2, 45}, "float32", "float64"));
  const target::TargetFacts facts = *target::DescribeTarget(testing::CheckOptions().target);
  for (const OpArgs& args : cases) {
    absl::StatusOr<Instantiated> inst =
        InstantiateFallback(testing::GetTemplate("cast.x86"), args, facts);
    ASSERT_TRUE(inst.ok()) << inst.status();
    const std::string to = args["to"];
    EXPECT_EQ(inst->program.args.back().dtype().ToString(), to) << args.dump();
    ASSERT_EQ(inst->program.logical_outputs.size(), 1u);
    EXPECT_EQ(runtime::DLTypeToString(inst->program.logical_outputs[0].dtype), to) << args.dump();
  }
}

// Independent of libtorch: truncation toward zero on both signs, the int64 wrap, and rounding to
// the nearest float32.
TEST(TransformTest, CastOfChosenValues) {
  {
    auto c = CompiledCast(Cast({6}, "float32", "int32"));
    if (!c) return;
    runtime::NDArray x = runtime::NDArray::Empty({6}, {kDLFloat, 32, 1});
    const float v[] = {2.7f, -2.7f, 0.5f, -0.5f, 99.99f, -100.0f};
    std::copy(std::begin(v), std::end(v), x.data<float>());
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        testing::RunLogical(c->first, c->second, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    const int32_t want[] = {2, -2, 0, 0, 99, -100};
    for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[0].data<int32_t>()[i], want[i]) << v[i];
  }
  {
    auto c = CompiledCast(Cast({4}, "int64", "int32"));
    if (!c) return;
    runtime::NDArray x = runtime::NDArray::Empty({4}, {kDLInt, 64, 1});
    const int64_t v[] = {(int64_t{1} << 32) + 5, -(int64_t{1} << 32) - 1, int64_t{1} << 31, -7};
    std::copy(std::begin(v), std::end(v), x.data<int64_t>());
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        testing::RunLogical(c->first, c->second, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    const int32_t want[] = {5, -1, INT32_MIN, -7};
    for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[0].data<int32_t>()[i], want[i]) << v[i];
  }
  {
    auto c = CompiledCast(Cast({3}, "int64", "float32"));
    if (!c) return;
    runtime::NDArray x = runtime::NDArray::Empty({3}, {kDLInt, 64, 1});
    // 2^24 + 1 lies halfway between two float32s: to the even one, 2^24; 2^24 + 3 likewise to
    // 2^24 + 4.
    const int64_t v[] = {(int64_t{1} << 24) + 1, (int64_t{1} << 24) + 3, -42};
    std::copy(std::begin(v), std::end(v), x.data<int64_t>());
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        testing::RunLogical(c->first, c->second, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    const float want[] = {16777216.0f, 16777220.0f, -42.0f};
    for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[0].data<float>()[i], want[i]) << v[i];
  }
}

TEST(TransformTest, ArgumentErrors) {
  ExpectError("concatenate.x86", {{"axis", 0}}, "shapes");
  ExpectError("concatenate.x86", {{"shapes", {{2, 3}, {2}}}, {"axis", 0}}, "shapes");
  ExpectError("concatenate.x86", {{"shapes", {{2, 3}, {3, 3}}}, {"axis", 1}}, "shapes");
  ExpectError("concatenate.x86", {{"shapes", {{2, 3}}}}, "axis");
  ExpectError("concatenate.x86", {{"shapes", {{2, 3}}}, {"axis", 2}}, "axis");
  ExpectError("reshape.x86", {{"shape", {2, 3}}, {"newshape", {4}}}, "newshape");
  ExpectError("reshape.x86", {{"shape", {2, 3}}, {"newshape", {-1, -1}}}, "newshape");
  ExpectError("reshape.x86", {{"shape", {2, 3}}, {"newshape", {0, 6}}}, "newshape");
  ExpectError("reshape.x86", {{"newshape", {6}}}, "shape");
  ExpectError("reshape.x86", {{"shape", {2, 3}}, {"newshape", {6}}, {"dtype", "bool"}}, "dtype");
  ExpectError("flatten.x86", {{"shape", {2, 3}}, {"axis", 3}}, "axis");
  ExpectError("flatten.x86", {{"shape", {2, 3}}, {"axis", -1}}, "axis");
  ExpectError("transpose.x86", {{"shape", {2, 3}}, {"axes", {0, 0}}}, "axes");
  ExpectError("transpose.x86", {{"shape", {2, 3}}, {"axes", {0}}}, "axes");
  ExpectError("transpose.x86", {{"shape", {2, 3}}, {"axes", {0, 2}}}, "axes");
  ExpectError("pad.x86", {{"shape", {2, 3}}, {"pad_before", {0}}, {"pad_after", {0, 0}}},
              "pad_before");
  ExpectError("pad.x86", {{"shape", {2, 3}}, {"pad_before", {0, 0}}, {"pad_after", {0, -1}}},
              "pad_after");
  ExpectError("pad.x86",
              {{"shape", {2, 3}}, {"pad_before", {0, 0}}, {"pad_after", {0, 0}}, {"mode", "wrap"}},
              "mode");
  ExpectError(
      "pad.x86",
      {{"shape", {2, 3}}, {"pad_before", {0, 3}}, {"pad_after", {0, 0}}, {"mode", "reflect"}},
      "pad_before");
  ExpectError("pad.x86",
              {{"shape", {2, 3}}, {"pad_before", {0, 0}}, {"pad_after", {0, 0}}, {"value", "x"}},
              "value");
  ExpectError("layout_transform.x86", {{"shape", {1, 16, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHWc"}},
              "dst");
  ExpectError("layout_transform.x86", {{"shape", {1, 16, 2, 2}}, {"src", "NCCW"}, {"dst", "NCHW"}},
              "src");
  ExpectError("layout_transform.x86", {{"shape", {1, 16, 2}}, {"src", "NCHW"}, {"dst", "NCHW"}},
              "shape");
  ExpectError("layout_transform.x86",
              {{"shape", {1, 2, 2, 2, 8}}, {"src", "NCHW16c"}, {"dst", "NCHW"}}, "shape");
  ExpectError("layout_transform.x86",
              {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}, "dst");
  ExpectError("layout_transform.x86", {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCDW"}},
              "dst");
  ExpectError("cast.x86", Cast({2, 3}, "float16", "float32"), "from");
  ExpectError("cast.x86", Cast({2, 3}, "int32", "uint8"), "to");
  ExpectError("cast.x86", {{"shape", {2, 3}}, {"from", "int32"}}, "to");
  ExpectError("cast.x86", Cast({2, 0}, "int32", "int64"), "shape");
}

}  // namespace
}  // namespace tessel::ops::x86
