// The injective builders without a schedule: the views they compute over (CollapseBroadcast and
// the per-operator reshapes), the host reshapes round-tripping the data, every operator of the
// table building on typical arguments, and argument errors naming the template and the key.
#include "compiler/ops/injective/builders.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/shape.h"

namespace tessel::ops::injective {
namespace {

std::vector<int64_t> Shape(const te::Tensor& t) { return *nn::ConstShape(t, "test"); }

TEST(CollapseBroadcastTest, MergesRunsOfTheSamePattern) {
  // A per-(n, c) scale over 3 x 5 planes: (n, c) merged, (h, w) merged.
  CollapsedViews v = CollapseBroadcast({2, 4, 3, 5}, {{2, 4, 3, 5}, {2, 4, 1, 1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{8, 15}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{8, 1}));
  // Alternating patterns stay apart; extent-1 axes of the output vanish.
  v = CollapseBroadcast({6, 1, 7, 2}, {{6, 1, 1, 2}, {7, 1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{6, 7, 2}));
  EXPECT_EQ(v.operands[0], (std::vector<int64_t>{6, 1, 2}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{1, 7, 1}));
}

TEST(BuildersTest, ViewsOfEachFamily) {
  absl::StatusOr<InjectiveOp> add = BinaryBuilder(nn::BinaryOp::kAdd)(
      "add.t", {{"a_shape", {2, 16, 5, 7}}, {"b_shape", {16, 1, 1}}});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ(Shape(add->output), (std::vector<int64_t>{2, 16, 35}));
  EXPECT_EQ(Shape(add->inputs[1]), (std::vector<int64_t>{1, 16, 1}));
  EXPECT_EQ(add->logical_output_shape, (std::vector<int64_t>{2, 16, 5, 7}));

  absl::StatusOr<InjectiveOp> relu =
      UnaryBuilder(*nn::FindUnaryOp("relu"))("relu.t", {{"shape", {3, 7, 29}}});
  ASSERT_TRUE(relu.ok());
  EXPECT_EQ(Shape(relu->output), (std::vector<int64_t>{609}));

  absl::StatusOr<InjectiveOp> take =
      BuildTake("take.t", {{"data_shape", {4, 10, 3}}, {"indices_shape", {2, 5}}, {"axis", 1}});
  ASSERT_TRUE(take.ok());
  EXPECT_EQ(Shape(take->output), (std::vector<int64_t>{4, 10, 3}));
  EXPECT_EQ(take->logical_output_shape, (std::vector<int64_t>{4, 2, 5, 3}));
  EXPECT_EQ(take->flops_per_element, 0);

  absl::StatusOr<InjectiveOp> bn = BuildBatchNorm("bn.t", {{"n", 2}, {"c", 3}, {"h", 7}, {"w", 7}});
  ASSERT_TRUE(bn.ok());
  EXPECT_EQ(Shape(bn->output), (std::vector<int64_t>{2, 3, 49}));
  EXPECT_EQ(bn->root_stages.size(), 2u);

  // cast reads x of `from` as one row and writes `to`.
  absl::StatusOr<InjectiveOp> cast =
      BuildCast("cast.t", {{"shape", {2, 3, 5}}, {"from", "int64"}, {"to", "float32"}});
  ASSERT_TRUE(cast.ok()) << cast.status();
  EXPECT_EQ(Shape(cast->output), (std::vector<int64_t>{30}));
  EXPECT_EQ(cast->inputs[0].dtype(), ir::kInt64);
  EXPECT_EQ(cast->output.dtype(), ir::kFloat32);
  EXPECT_EQ(LogicalOutput(*cast, {30}).dtype.code, kDLFloat);
  EXPECT_EQ(cast->logical_inputs[0].dtype.bits, 64);
  EXPECT_EQ(cast->logical_output_shape, (std::vector<int64_t>{2, 3, 5}));

  // Transposes keep the trailing axes left in place fusable.
  absl::StatusOr<InjectiveOp> tr =
      BuildTranspose("transpose.t", {{"shape", {2, 3, 4, 5}}, {"axes", {1, 0, 2, 3}}});
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ(tr->max_inner_axes, 2);
}

TEST(BuildersTest, EveryOperatorBuilds) {
  const std::map<std::string, OpArgs> args = {
      {"leaky_relu", {{"shape", {5, 3}}, {"alpha", 0.2}}},
      {"clip", {{"shape", {5, 3}}, {"min", -0.5}, {"max", 0.5}}},
      {"concatenate", {{"shapes", {{2, 3}, {2, 5}}}, {"axis", 1}}},
      {"reshape", {{"shape", {2, 6}}, {"newshape", {3, -1}}}},
      {"flatten", {{"shape", {2, 3, 4}}}},
      {"transpose", {{"shape", {2, 3}}, {"axes", {1, 0}}}},
      {"pad", {{"shape", {2, 3}}, {"pad_before", {0, 1}}, {"pad_after", {1, 0}}}},
      {"layout_transform", {{"shape", {1, 32, 4, 4}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}},
      {"take", {{"data_shape", {5, 3}}, {"indices_shape", {4}}}},
      {"cast", {{"shape", {4, 3}}, {"from", "float32"}, {"to", "int32"}}},
      {"batch_norm", {{"n", 1}, {"c", 4}, {"h", 3}, {"w", 3}}},
      {"quantize", {{"shape", {4, 3}}, {"scale", 0.5}}},
      {"dequantize", {{"shape", {4, 3}}, {"scale", 0.5}}},
  };
  std::set<std::string> seen;
  for (const InjectiveOperator& o : InjectiveOperators()) {
    EXPECT_TRUE(seen.insert(o.op).second) << o.op << " twice";
    const bool binary = nn::FindBinaryOp(o.op).has_value();
    OpArgs a = binary ? OpArgs{{"a_shape", {4, 3}}, {"b_shape", {3}}} : OpArgs{{"shape", {4, 3}}};
    if (auto it = args.find(o.op); it != args.end()) a = it->second;
    absl::StatusOr<InjectiveOp> op = o.build(o.op + ".t", a);
    ASSERT_TRUE(op.ok()) << o.op << ": " << op.status();
    EXPECT_EQ(op->inputs.size(), op->logical_inputs.size()) << o.op;
  }
  EXPECT_EQ(seen.size(), nn::UnaryOps().size() + nn::AllBinaryOps().size() + 11);
}

TEST(BuildersTest, ErrorsNameTheTemplateAndTheKey) {
  const InjectiveBuilder clip = UnaryBuilder(*nn::FindUnaryOp("clip"));
  absl::StatusOr<InjectiveOp> op = clip("clip.t", {{"shape", {2}}, {"min", 1}, {"max", 0}});
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(), "clip.t: argument 'min' must not exceed argument 'max'");
  op = BinaryBuilder(nn::BinaryOp::kMinimum)("minimum.t", {{"a_shape", {2, 3}}, {"b_shape", {4}}});
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("minimum.t: arguments 'a_shape' [2, 3] and 'b_shape' [4]"),
            std::string::npos)
      << op.status().message();
  op = UnaryBuilder(*nn::FindUnaryOp("gelu"))("gelu.t", {{"shape", {2}}, {"approximate", "erf"}});
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(),
            "gelu.t: argument 'approximate' must be \"none\" or \"tanh\", got \"erf\"");
  op = BuildTake("take.t", {{"data_shape", {2, 3}}, {"indices_shape", {4}}, {"axis", 2}});
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("'axis'"), std::string::npos) << op.status().message();
  op = BuildCast("cast.t", {{"shape", {2}}, {"from", "int32"}, {"to", "bool"}});
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(),
            "cast.t: argument 'to': 'bool' is none of float32, float64, int32, int64");
  op = BuildCast("cast.t", {{"shape", {2}}, {"to", "int32"}});
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("'from'"), std::string::npos) << op.status().message();
}

TEST(HostReshapeTest, KeepsTheElementsInOrder) {
  runtime::NDArray a = runtime::NDArray::Empty({2, 3}, {kDLFloat, 32, 1});
  for (int i = 0; i < 6; ++i) a.data<float>()[i] = static_cast<float>(i);
  absl::StatusOr<std::vector<runtime::NDArray>> out = ReshapeArrays({{3, 2}})({a});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), (std::vector<int64_t>{3, 2}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[0].data<float>()[i], static_cast<float>(i));
}

}  // namespace
}  // namespace tessel::ops::injective
