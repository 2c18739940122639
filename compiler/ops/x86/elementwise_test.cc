// The element-wise templates against libtorch: every operator of one input on several shapes (prime
// extents, single elements, rank 1 to 5), every kind of broadcasting for the binary operators,
// random configs, fused tails over views, the binary operators in float64, int32 and int64, and
// argument errors naming the key.
#include "compiler/ops/nn/elementwise.h"

#include <gtest/gtest.h>

#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using testing::CheckFallback;
using testing::CheckRandomConfigs;
using testing::CheckTailRandomConfigs;

const std::vector<OpArgs>& ActivationShapes() {
  static const auto* shapes = new std::vector<OpArgs>{{1},
                                                      {7},
                                                      {1000},
                                                      {3, 5},
                                                      {2, 3, 17},
                                                      {1, 64, 56, 56},
                                                      {2, 3, 1, 1},
                                                      {1, 13, 7, 11},
                                                      {2, 2, 3, 5, 19}};
  return *shapes;
}

// Arguments of the unary operators beside the shape: attributes away from their defaults.
OpArgs UnaryArgs(const std::string& op, const OpArgs& shape) {
  OpArgs args = {{"shape", shape}};
  if (op == "leaky_relu") args["alpha"] = 0.2;
  if (op == "clip") args["min"] = -0.5, args["max"] = 1.25;
  if (op == "elu") args["alpha"] = 0.7;
  if (op == "selu") args["alpha"] = 1.5, args["gamma"] = 1.25;
  if (op == "hard_sigmoid") args["alpha"] = 0.25, args["beta"] = 0.4;
  if (op == "thresholded_relu") args["alpha"] = 0.3;
  return args;
}

TEST(ElementwiseTest, UnaryFallback) {
  for (const nn::UnaryOp& unary : nn::UnaryOps()) {
    const std::string op = unary.name;
    for (const OpArgs& shape : ActivationShapes()) {
      const OpArgs args = UnaryArgs(op, shape);
      const absl::Status s = CheckFallback(testing::GetTemplate(op + ".x86"), args);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
  }
}

TEST(ElementwiseTest, UnaryDefaultAttributes) {
  for (const std::string op : {"leaky_relu", "elu", "selu", "hard_sigmoid", "thresholded_relu"}) {
    const absl::Status s = CheckFallback(testing::GetTemplate(op + ".x86"), {{"shape", {4, 33}}});
    EXPECT_TRUE(s.ok()) << op << ": " << s;
  }
  const absl::Status s = CheckFallback(testing::GetTemplate("gelu.x86"),
                                       {{"shape", {4, 33}}, {"approximate", "tanh"}});
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ElementwiseTest, UnaryRandomConfigs) {
  for (const nn::UnaryOp& unary : nn::UnaryOps()) {
    const std::string op = unary.name;
    absl::Status s =
        CheckRandomConfigs(testing::GetTemplate(op + ".x86"), UnaryArgs(op, {3, 7, 29}), 8);
    EXPECT_TRUE(s.ok()) << op << ": " << s;
  }
}

// (a_shape, b_shape) pairs covering every kind of broadcasting.
const std::vector<std::pair<OpArgs, OpArgs>>& BroadcastCases() {
  static const auto* cases = new std::vector<std::pair<OpArgs, OpArgs>>{
      {{2, 3, 5}, {2, 3, 5}},           // same shape
      {{4, 7, 9}, {1}},                 // scalar-like
      {{1}, {4, 7, 9}},                 // scalar-like on the left
      {{2, 16, 5, 7}, {7}},             // trailing: b is a row
      {{2, 16, 5, 7}, {16, 1, 1}},      // per-channel (bias-add)
      {{2, 16, 5, 7}, {2, 16, 1, 1}},   // per-(n, c)
      {{3, 1, 5}, {1, 4, 1}},           // both sides broadcast
      {{5, 1}, {1, 6}},                 // outer product
      {{1, 3, 1, 11}, {2, 1, 13, 11}},  // leading and middle
      {{6, 5}, {4, 1, 6, 5}},           // missing leading dimensions
      {{1, 1}, {1, 1}},                 // one element
  };
  return *cases;
}

TEST(ElementwiseTest, BinaryBroadcastingFallback) {
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    for (const auto& [a, b] : BroadcastCases()) {
      const OpArgs args = {{"a_shape", a}, {"b_shape", b}};
      absl::Status s = CheckFallback(testing::GetTemplate(op + ".x86"), args);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
  }
}

TEST(ElementwiseTest, BinaryRandomConfigs) {
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    const OpArgs args = {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}};
    absl::Status s = CheckRandomConfigs(testing::GetTemplate(op + ".x86"), args, 20);
    EXPECT_TRUE(s.ok()) << op << ": " << s;
  }
  absl::Status s = CheckRandomConfigs(testing::GetTemplate("add.x86"),
                                      {{"a_shape", {3, 1, 37}}, {"b_shape", {4, 1}}}, 20);
  EXPECT_TRUE(s.ok()) << s;
}

// With a fused tail (a fusion group without a master: its first node leads, the rest is the
// tail): the operands and the tail's bias and residual over their joint views, which split axes
// the operator alone would merge.
TEST(ElementwiseTest, TailsOverViews) {
  for (const std::string op : {"relu", "sigmoid", "gelu"}) {
    for (const OpArgs& shape : {OpArgs{2, 3, 17}, OpArgs{1, 64, 7, 7}, OpArgs{2, 2, 3, 5, 19}}) {
      const absl::Status s =
          CheckTailRandomConfigs(testing::GetTemplate(op + ".x86"), UnaryArgs(op, shape), 3);
      EXPECT_TRUE(s.ok()) << s;
    }
  }
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    for (const auto& [a, b] :
         std::vector<std::pair<OpArgs, OpArgs>>{{{2, 16, 5, 7}, {16, 1, 1}},
                                                {{3, 1, 5}, {1, 4, 1}},
                                                {{1, 3, 1, 11}, {2, 1, 13, 11}}}) {
      const absl::Status s = CheckTailRandomConfigs(testing::GetTemplate(op + ".x86"),
                                                    {{"a_shape", a}, {"b_shape", b}}, 3);
      EXPECT_TRUE(s.ok()) << s;
    }
  }
}

// A tail that cannot be evaluated over views, or whose input does not broadcast to the output.
TEST(ElementwiseTest, TailErrors) {
  const Template& relu = testing::GetTemplate("relu.x86");
  const OpArgs args = {{"shape", {2, 3, 4}}};
  const target::TargetFacts facts;
  absl::StatusOr<search::ConfigSpace> space = relu.space(args, facts);
  ASSERT_TRUE(space.ok()) << space.status();
  const search::Config config = relu.fallback(*space, args, facts);
  te::Tensor bias = te::placeholder({nn::Dim(3), nn::Dim(1)}, ir::kFloat32, "bias");
  const OutputTail logical_only{{bias}, [&](ir::Expr v, const std::vector<ir::Expr>& l) {
                                  return v + bias({l[1], l[2]});
                                }};
  absl::StatusOr<OpProgram> p = relu.instantiate_with_tail(config, args, facts, logical_only);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("over views"), std::string::npos) << p.status();
  const OutputTail wrong =
      BroadcastingTail({2, 3, 4}, {"row"}, {{5}},
                       [](ir::Expr v, const std::vector<ir::Expr>& r) { return v + r[0]; });
  p = relu.instantiate_with_tail(config, args, facts, wrong);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("tail input 'row' [5] does not broadcast to [2, 3, 4]"),
            std::string::npos)
      << p.status();
}

// ONNX's other arithmetic types: each operator in each type it computes (nn::BinaryElementType).
TEST(ElementwiseTest, BinaryInOtherElementTypes) {
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    for (const std::string dtype : {"float64", "int32", "int64"}) {
      if (!nn::BinaryElementType(kind, dtype).ok()) continue;
      const OpArgs args = {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}, {"dtype", dtype}};
      absl::Status s = CheckFallback(testing::GetTemplate(op + ".x86"), args);
      EXPECT_TRUE(s.ok()) << op << " " << dtype << ": " << s;
      s = CheckRandomConfigs(testing::GetTemplate(op + ".x86"), args, 5);
      EXPECT_TRUE(s.ok()) << op << " " << dtype << ": " << s;
    }
  }
  EXPECT_FALSE(nn::BinaryElementType(nn::BinaryOp::kDivide, "int64").ok());
  EXPECT_FALSE(nn::BinaryElementType(nn::BinaryOp::kPower, "float64").ok());
  EXPECT_FALSE(nn::BinaryElementType(nn::BinaryOp::kAdd, "float16").ok());
  EXPECT_TRUE(nn::BinaryElementType(nn::BinaryOp::kDivide, "float64").ok());
}

void ExpectError(const std::string& name, const OpArgs& args, const std::string& key) {
  absl::StatusOr<search::ConfigSpace> space =
      testing::GetTemplate(name).space(args, target::TargetFacts{});
  ASSERT_FALSE(space.ok()) << name << " " << args.dump();
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
      << space.status().message();
}

TEST(ElementwiseTest, ArgumentErrors) {
  ExpectError("relu.x86", OpArgs::object(), "shape");
  ExpectError("relu.x86", {{"shape", {2, 0}}}, "shape");
  ExpectError("relu.x86", {{"shape", OpArgs::array()}}, "shape");
  ExpectError("sigmoid.x86", {{"shape", "big"}}, "shape");
  ExpectError("leaky_relu.x86", {{"shape", {2}}, {"alpha", "x"}}, "alpha");
  ExpectError("clip.x86", {{"shape", {2}}, {"max", 1}}, "min");
  ExpectError("clip.x86", {{"shape", {2}}, {"min", 1}}, "max");
  ExpectError("clip.x86", {{"shape", {2}}, {"min", 1}, {"max", 0}}, "min");
  ExpectError("elu.x86", {{"shape", {2}}, {"alpha", "x"}}, "alpha");
  ExpectError("gelu.x86", {{"shape", {2}}, {"approximate", "fast"}}, "approximate");
  ExpectError("add.x86", {{"a_shape", {2, 3}}}, "b_shape");
  ExpectError("add.x86", {{"a_shape", {2, 3}}, {"b_shape", {4}}}, "a_shape");
  ExpectError("maximum.x86", {{"a_shape", {2, 3}}, {"b_shape", {2, 1, 2}}}, "b_shape");
  ExpectError("add.x86", {{"a_shape", {2}}, {"b_shape", {2}}, {"dtype", "float16"}}, "dtype");
  ExpectError("divide.x86", {{"a_shape", {2}}, {"b_shape", {2}}, {"dtype", "int32"}}, "dtype");
  ExpectError("power.x86", {{"a_shape", {2}}, {"b_shape", {2}}, {"dtype", "int64"}}, "dtype");
}

}  // namespace
}  // namespace tessel::ops::x86
