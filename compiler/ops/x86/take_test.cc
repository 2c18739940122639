// take.x86 against libtorch: embedding lookups, gathers along inner and last axes, random
// configs (every check draws indices in [-n - 2, n + 2), so the negative wrap and the clamp are
// covered), chosen out-of-range indices against hand-computed rows, and argument errors naming
// the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckFallback;
using testing::CheckRandomConfigs;

const Template& Take() {
  absl::StatusOr<const Template*> t = FindTemplate("take.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(std::vector<int64_t> data, std::vector<int64_t> indices, int64_t axis = 0) {
  return {{"data_shape", data}, {"indices_shape", indices}, {"axis", axis}};
}

TEST(TakeTest, Fallback) {
  for (const OpArgs& args :
       {Args({1000, 650}, {35, 1}),  // the LSTM LM's lookup, smaller table
        Args({35, 650}, {1}), Args({7, 5, 33}, {4}, 1), Args({2, 9, 3, 17}, {2, 3}, 2),
        Args({6, 40}, {19}, 1), Args({6, 40}, {3, 5}, -1), Args({13}, {20}),
        Args({3, 1, 5}, {2}, 1)}) {
    absl::Status s = CheckFallback(Take(), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

// ONNX Gather's indices as exporters write them: int64.
TEST(TakeTest, Int64Indices) {
  for (OpArgs args : {Args({50, 7}, {3, 4}), Args({4, 10, 37}, {5}, -2)}) {
    args["indices_dtype"] = "int64";
    absl::Status s = CheckFallback(Take(), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
    s = CheckRandomConfigs(Take(), args, 5);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
  OpArgs bad = Args({5, 2}, {3});
  bad["indices_dtype"] = "float32";
  absl::Status s = CheckFallback(Take(), bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'indices_dtype': 'float32' is neither"), std::string::npos) << s;
}

TEST(TakeTest, RandomConfigs) {
  for (const OpArgs& args :
       {Args({50, 100}, {12}), Args({4, 10, 37}, {3, 2}, 1), Args({5, 64}, {33}, 1)}) {
    absl::Status s = CheckRandomConfigs(Take(), args, 20);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

// Independent of libtorch: rows picked by hand for indices far outside [-n, n).
TEST(TakeTest, OutOfRangeIndicesAreClamped) {
  const OpArgs args = Args({4, 3}, {6});
  const target::Target on = testing::CheckOptions().target;
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(on);
  ASSERT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<Instantiated> inst = InstantiateFallback(Take(), args, *facts);
  ASSERT_TRUE(inst.ok()) << inst.status();
  absl::StatusOr<std::optional<runtime::Function>> compiled =
      testing::CompileToCheck(inst->program, on);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled->has_value()) return;
  const runtime::Function& f = **compiled;
  runtime::NDArray data = runtime::NDArray::Empty({4, 3}, {kDLFloat, 32, 1});
  for (int i = 0; i < 12; ++i) data.data<float>()[i] = static_cast<float>(i);
  runtime::NDArray indices = runtime::NDArray::Empty({6}, {kDLInt, 32, 1});
  const int32_t k[] = {2, -1, -4, 1000000, -1000000, 4};
  std::copy(std::begin(k), std::end(k), indices.data<int32_t>());
  absl::StatusOr<std::vector<runtime::NDArray>> out =
      testing::RunLogical(inst->program, f, {data, indices});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), (std::vector<int64_t>{6, 3}));
  const int rows[] = {2, 3, 0, 3, 0, 3};
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ((*out)[0].data<float>()[i * 3 + j], static_cast<float>(rows[i] * 3 + j))
          << "index " << k[i];
    }
  }
}

TEST(TakeTest, BadArgumentsNameTheKey) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {{{"indices_shape", {3}}}, "data_shape"},
      {{{"data_shape", std::vector<int>{}}, {"indices_shape", {3}}}, "data_shape"},
      {{{"data_shape", {5, 0}}, {"indices_shape", {3}}}, "data_shape"},
      {{{"data_shape", {5, 2}}}, "indices_shape"},
      {{{"data_shape", {5, 2}}, {"indices_shape", std::vector<int>{}}}, "indices_shape"},
      {Args({5, 2}, {3}, 2), "axis"},
      {Args({5, 2}, {3}, -3), "axis"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space = Take().space(args, target::TargetFacts{});
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::x86
