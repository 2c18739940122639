// LogicalSignatureOf without any target: shapes and element types of representative arguments
// against OPERATORS.md's (and torch's) formulas worked out by hand, and every argument error
// naming its operator and key. The x86 templates' programs are checked against the signatures in
// compiler/ops/x86/logical_op_test.cc.
#include "compiler/ops/logical_op.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;
using Shapes = std::vector<std::vector<int64_t>>;

constexpr DLDataType kF32{kDLFloat, 32, 1};

std::vector<std::vector<int64_t>> ShapesOf(const std::vector<TensorSpec>& specs) {
  Shapes out;
  for (const TensorSpec& s : specs) out.push_back(s.shape);
  return out;
}

std::vector<std::string> NamesOf(const std::vector<TensorSpec>& specs) {
  std::vector<std::string> out;
  for (const TensorSpec& s : specs) out.push_back(s.name);
  return out;
}

bool SameType(const DLDataType& a, const DLDataType& b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

LogicalSignature Of(const std::string& op, const OpArgs& args) {
  absl::StatusOr<LogicalSignature> s = LogicalSignatureOf(op, args);
  EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s.status();
  return s.ok() ? *s : LogicalSignature{};
}

TEST(LogicalOpTest, GroupedStridedDilatedConv2d) {
  // oh = (10 + 1 + 2 - 2 * (3 - 1) - 1) / 2 + 1 = 5, ow = (9 + 0 + 1 - 3 * (2 - 1) - 1) / 1 + 1
  // = 7.
  const LogicalSignature s = Of("conv2d", {{"n", 2},
                                           {"ic", 8},
                                           {"h", 10},
                                           {"w", 9},
                                           {"oc", 12},
                                           {"kh", 3},
                                           {"kw", 2},
                                           {"stride", {2, 1}},
                                           {"pad", {1, 0, 2, 1}},
                                           {"dilation", {2, 3}},
                                           {"groups", 4}});
  EXPECT_EQ(ShapesOf(s.inputs), (Shapes{{2, 8, 10, 9}, {12, 2, 3, 2}}));
  EXPECT_EQ(NamesOf(s.inputs), (std::vector<std::string>{"data", "weight"}));
  EXPECT_EQ(ShapesOf(s.outputs), (Shapes{{2, 12, 5, 7}}));
  EXPECT_TRUE(SameType(s.outputs[0].dtype, kF32));
}

TEST(LogicalOpTest, Conv2dTranspose) {
  // torch: (h - 1) * stride - pad_top - pad_bottom + kh + output_padding = 4 * 2 - 2 + 4 + 1 = 11;
  // columns: 6 * 3 - 0 - 1 + 3 + 0 = 20.
  const LogicalSignature s = Of("conv2d_transpose", {{"n", 1},
                                                     {"ic", 16},
                                                     {"h", 5},
                                                     {"w", 7},
                                                     {"oc", 8},
                                                     {"kh", 4},
                                                     {"kw", 3},
                                                     {"stride", {2, 3}},
                                                     {"pad", {1, 0, 1, 1}},
                                                     {"output_padding", {1, 0}}});
  EXPECT_EQ(ShapesOf(s.inputs), (Shapes{{1, 16, 5, 7}, {16, 8, 4, 3}}));
  EXPECT_EQ(ShapesOf(s.outputs), (Shapes{{1, 8, 11, 20}}));
}

TEST(LogicalOpTest, PoolingInCeilMode) {
  // Rows: ceil((9 + 1 + 1 - 3) / 2) + 1 = 5 (the last window starts at padded row 8, before the
  // bottom padding at 1 + 9: kept). Columns: ceil((8 - 3) / 2) + 1 = 4 (column 6 < 8: kept).
  const LogicalSignature s = Of("max_pool2d", {{"n", 1},
                                               {"c", 3},
                                               {"h", 9},
                                               {"w", 8},
                                               {"kh", 3},
                                               {"kw", 3},
                                               {"stride", {2, 2}},
                                               {"pad", {1, 0, 1, 0}},
                                               {"ceil_mode", true}});
  EXPECT_EQ(ShapesOf(s.outputs), (Shapes{{1, 3, 5, 4}}));
  EXPECT_EQ(ShapesOf(Of("global_avg_pool2d", {{"n", 2}, {"c", 3}, {"h", 4}, {"w", 5}}).outputs),
            (Shapes{{2, 3, 1, 1}}));
}

TEST(LogicalOpTest, MatrixProducts) {
  const LogicalSignature dense = Of("dense", {{"m", 3}, {"n", 5}, {"k", 7}, {"bias", true}});
  EXPECT_EQ(ShapesOf(dense.inputs), (Shapes{{3, 7}, {5, 7}, {5}}));
  EXPECT_EQ(NamesOf(dense.inputs), (std::vector<std::string>{"data", "weight", "bias"}));
  EXPECT_EQ(ShapesOf(dense.outputs), (Shapes{{3, 5}}));
  const LogicalSignature bmm = Of("batch_matmul", {{"batch", 2}, {"m", 3}, {"n", 5}, {"k", 7}});
  EXPECT_EQ(ShapesOf(bmm.inputs), (Shapes{{2, 3, 7}, {2, 7, 5}}));
  EXPECT_EQ(ShapesOf(bmm.outputs), (Shapes{{2, 3, 5}}));
}

TEST(LogicalOpTest, LstmCellHasTwoOutputs) {
  const LogicalSignature s = Of("lstm_cell", {{"batch", 2}, {"input", 5}, {"hidden", 4}});
  EXPECT_EQ(NamesOf(s.inputs),
            (std::vector<std::string>{"x", "h", "c", "w_ih", "w_hh", "b_ih", "b_hh"}));
  EXPECT_EQ(ShapesOf(s.inputs), (Shapes{{2, 5}, {2, 4}, {2, 4}, {16, 5}, {16, 4}, {16}, {16}}));
  EXPECT_EQ(NamesOf(s.outputs), (std::vector<std::string>{"h_next", "c_next"}));
  EXPECT_EQ(ShapesOf(s.outputs), (Shapes{{2, 4}, {2, 4}}));
  EXPECT_DOUBLE_EQ(s.inputs[3].high, 0.5);  // 1 / sqrt(hidden)
}

TEST(LogicalOpTest, BitserialTypes) {
  const LogicalSignature s = Of("bitserial_conv2d", {{"n", 1},
                                                     {"ic", 40},
                                                     {"h", 6},
                                                     {"w", 7},
                                                     {"oc", 3},
                                                     {"kh", 3},
                                                     {"kw", 3},
                                                     {"stride", {2, 1}},
                                                     {"pad", {1, 1, 1, 1}},
                                                     {"activation_bits", 3},
                                                     {"weight_bits", 1},
                                                     {"unipolar", false}});
  EXPECT_EQ(ShapesOf(s.inputs), (Shapes{{1, 40, 6, 7}, {3, 40, 3, 3}}));
  EXPECT_EQ(ShapesOf(s.outputs), (Shapes{{1, 3, 3, 7}}));
  EXPECT_TRUE(SameType(s.inputs[0].dtype, DLDataType{kDLUInt, 8, 1}));
  EXPECT_TRUE(SameType(s.inputs[1].dtype, DLDataType{kDLUInt, 8, 1}));
  EXPECT_TRUE(SameType(s.outputs[0].dtype, DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(s.inputs[0].high, 8);  // 3-bit activations
  const LogicalSignature d = Of("bitserial_dense", {{"m", 2}, {"n", 3}, {"k", 70}});
  EXPECT_EQ(ShapesOf(d.inputs), (Shapes{{2, 70}, {3, 70}}));
  EXPECT_EQ(ShapesOf(d.outputs), (Shapes{{2, 3}}));
  EXPECT_TRUE(SameType(d.outputs[0].dtype, DLDataType{kDLInt, 32, 1}));
}

TEST(LogicalOpTest, ElementwiseAndNorms) {
  EXPECT_EQ(ShapesOf(Of("add", {{"a_shape", {2, 1, 5}}, {"b_shape", {3, 1}}}).outputs),
            (Shapes{{2, 3, 5}}));
  EXPECT_EQ(Of("divide", {{"a_shape", {4}}, {"b_shape", {4}}}).inputs[1].low, 0.5);
  EXPECT_EQ(Of("sigmoid", {{"shape", {4}}}).inputs[0].low, -8);
  EXPECT_EQ(ShapesOf(Of("clip", {{"shape", {3, 2}}, {"min", 0}, {"max", 6}}).outputs),
            (Shapes{{3, 2}}));
  const LogicalSignature bn = Of("batch_norm", {{"n", 1}, {"c", 6}, {"h", 2}, {"w", 3}});
  EXPECT_EQ(ShapesOf(bn.inputs), (Shapes{{1, 6, 2, 3}, {6}, {6}, {6}, {6}}));
  EXPECT_EQ(bn.inputs[4].low, 0.1);  // var
  EXPECT_EQ(ShapesOf(Of("log_softmax", {{"shape", {3, 4, 5}}, {"axis", -2}}).outputs),
            (Shapes{{3, 4, 5}}));
}

TEST(LogicalOpTest, Transforms) {
  const LogicalSignature cat =
      Of("concatenate", {{"shapes", {{2, 3, 4}, {2, 5, 4}, {2, 1, 4}}}, {"axis", -2}});
  EXPECT_EQ(NamesOf(cat.inputs), (std::vector<std::string>{"x0", "x1", "x2"}));
  EXPECT_EQ(ShapesOf(cat.outputs), (Shapes{{2, 9, 4}}));
  EXPECT_EQ(ShapesOf(Of("reshape", {{"shape", {4, 6}}, {"newshape", {2, -1, 3}}}).outputs),
            (Shapes{{2, 4, 3}}));
  EXPECT_EQ(ShapesOf(Of("flatten", {{"shape", {2, 3, 4}}}).outputs), (Shapes{{2, 12}}));
  EXPECT_EQ(ShapesOf(Of("flatten", {{"shape", {2, 3, 4}}, {"axis", 0}}).outputs),
            (Shapes{{1, 24}}));
  EXPECT_EQ(ShapesOf(Of("transpose", {{"shape", {2, 3, 4}}, {"axes", {2, -3, 1}}}).outputs),
            (Shapes{{4, 2, 3}}));
  EXPECT_EQ(
      ShapesOf(
          Of("pad", {{"shape", {2, 3}}, {"pad_before", {0, 1}}, {"pad_after", {2, 3}}}).outputs),
      (Shapes{{4, 7}}));
  EXPECT_EQ(ShapesOf(Of("layout_transform",
                        {{"shape", {1, 32, 5, 7}}, {"src", "NCHW"}, {"dst", "NCHW8c"}})
                         .outputs),
            (Shapes{{1, 4, 5, 7, 8}}));
  const LogicalSignature take =
      Of("take", {{"data_shape", {5, 6, 7}}, {"indices_shape", {2, 3}}, {"axis", -2}});
  EXPECT_EQ(ShapesOf(take.outputs), (Shapes{{5, 2, 3, 7}}));
  EXPECT_TRUE(SameType(take.inputs[1].dtype, DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(take.inputs[1].low, -8);  // -n - 2 with n = 6
}

// cast keeps the shape and changes the element type: x of `from`, out of `to`; x drawn from
// [-100, 100), and past int32's range for int64 -> int32 (the wrap).
TEST(LogicalOpTest, Cast) {
  const LogicalSignature f2i =
      Of("cast", {{"shape", {2, 3, 4}}, {"from", "float32"}, {"to", "int32"}});
  EXPECT_EQ(ShapesOf(f2i.inputs), (Shapes{{2, 3, 4}}));
  EXPECT_EQ(ShapesOf(f2i.outputs), (Shapes{{2, 3, 4}}));
  EXPECT_TRUE(SameType(f2i.inputs[0].dtype, kF32));
  EXPECT_TRUE(SameType(f2i.outputs[0].dtype, DLDataType{kDLInt, 32, 1}));
  EXPECT_EQ(f2i.inputs[0].low, -100);
  EXPECT_EQ(f2i.inputs[0].high, 100);
  const LogicalSignature i2f = Of("cast", {{"shape", {5}}, {"from", "int64"}, {"to", "float64"}});
  EXPECT_TRUE(SameType(i2f.inputs[0].dtype, DLDataType{kDLInt, 64, 1}));
  EXPECT_TRUE(SameType(i2f.outputs[0].dtype, DLDataType{kDLFloat, 64, 1}));
  const LogicalSignature wrap = Of("cast", {{"shape", {5}}, {"from", "int64"}, {"to", "int32"}});
  EXPECT_LT(wrap.inputs[0].low, -2147483648.0);
  EXPECT_GT(wrap.inputs[0].high, 2147483648.0);
  const LogicalSignature same = Of("cast", {{"shape", {5}}, {"from", "int32"}, {"to", "int32"}});
  EXPECT_TRUE(SameType(same.outputs[0].dtype, DLDataType{kDLInt, 32, 1}));
}

TEST(LogicalOpTest, UnknownOperatorListsTheKnownOnes) {
  absl::StatusOr<LogicalSignature> s = LogicalSignatureOf("conv3d", {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("operator 'conv3d'"));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("conv2d_transpose"));
}

// Each argument error names the operator and the key.
TEST(LogicalOpTest, ArgumentErrors) {
  const OpArgs conv = {{"n", 1}, {"ic", 4}, {"h", 8}, {"w", 8}, {"oc", 6}, {"kh", 3}, {"kw", 3}};
  auto with = [](OpArgs args, const std::string& key, OpArgs value) {
    args[key] = std::move(value);
    return args;
  };
  auto without = [](OpArgs args, const std::string& key) {
    args.erase(key);
    return args;
  };
  const OpArgs transpose = with(with(conv, "stride", {2, 2}), "kh", 4);
  const OpArgs pool = {{"n", 1}, {"c", 2}, {"h", 5}, {"w", 5}, {"kh", 2}, {"kw", 2}};
  struct Case {
    std::string op;
    OpArgs args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"conv2d", without(conv, "oc"), "conv2d: missing argument 'oc'"},
      {"conv2d", with(conv, "groups", 3), "conv2d: 'groups' (3) must divide 'ic' (4)"},
      {"conv2d", with(conv, "h", 1), "conv2d: the kernel 'kh' x 'kw'"},
      {"conv2d", with(conv, "dilation", {1}), "conv2d: argument 'dilation' must be a list of 2"},
      {"conv2d_transpose", with(transpose, "output_padding", {2, 0}),
       "conv2d_transpose: 'output_padding' entries must be below the stride"},
      {"conv2d_transpose", with(transpose, "pad", {4, 0, 0, 0}),
       "conv2d_transpose: 'pad' entries must be below the kernel size"},
      {"conv2d_transpose", with(with(transpose, "h", 40000), "w", 40000),
       "conv2d_transpose: tensors of 2^31 elements or more"},
      {"bitserial_conv2d", with(conv, "groups", 2),
       "bitserial_conv2d: argument 'groups' must be 1"},
      {"bitserial_conv2d", with(conv, "dilation", {2, 2}),
       "bitserial_conv2d: argument 'dilation' must be [1, 1]"},
      {"bitserial_conv2d", with(conv, "activation_bits", 9),
       "bitserial_conv2d: argument 'activation_bits' must be at most 8"},
      {"bitserial_dense",
       {{"m", 1}, {"n", 2}, {"k", 3}, {"weight_bits", 2}, {"unipolar", false}},
       "bitserial_dense: argument 'weight_bits' must be 1 when 'unipolar' is false"},
      {"dense", {{"m", 0}, {"n", 2}, {"k", 3}}, "dense: argument 'm' must be at least 1, got 0"},
      {"dense",
       {{"m", int64_t{1} << 31}, {"n", 2}, {"k", 3}},
       "dense: argument 'm' must be below 2^31"},
      {"dense",
       {{"m", 1}, {"n", 2}, {"k", 3}, {"bias", 1}},
       "dense: argument 'bias' must be true or false"},
      {"dense", OpArgs::array({1, 2}), "dense: missing argument 'm'"},
      {"matmul", {{"m", 1}, {"n", 2}}, "matmul: missing argument 'k'"},
      {"batch_matmul", {{"m", 1}, {"n", 2}, {"k", 3}}, "batch_matmul: missing argument 'batch'"},
      {"rnn_cell", {{"batch", 1}, {"input", 2}}, "rnn_cell: missing argument 'hidden'"},
      {"lstm_cell",
       {{"batch", 1}, {"input", 2}, {"hidden", "4"}},
       "lstm_cell: argument 'hidden' must be an integer"},
      {"max_pool2d", with(pool, "pad", {2, 0, 0, 0}),
       "max_pool2d: argument 'pad' entries must be smaller than the kernel"},
      {"avg_pool2d", with(with(pool, "kh", 7), "pad", {1, 0, 0, 0}),
       "avg_pool2d: argument 'kh' exceeds the padded input"},
      {"avg_pool2d", with(pool, "count_include_pad", "yes"),
       "avg_pool2d: argument 'count_include_pad' must be true or false"},
      {"max_pool2d", with(pool, "stride", {0, 1}),
       "max_pool2d: argument 'stride' entries must be at least 1"},
      {"global_max_pool2d",
       {{"n", 1}, {"c", 2}, {"h", 3}},
       "global_max_pool2d: missing argument 'w'"},
      {"batch_norm",
       {{"n", 1}, {"c", 2}, {"h", 3}, {"w", 4}, {"epsilon", -1}},
       "batch_norm: argument 'epsilon' must not be negative"},
      {"softmax",
       {{"shape", {2, 3}}, {"axis", 2}},
       "softmax: argument 'axis' must be below the rank 2"},
      {"log_softmax",
       {{"shape", {2, 3}}, {"axis", -3}},
       "log_softmax: argument 'axis' must be at least -2"},
      {"relu", {{"shape", OpArgs::array()}}, "relu: argument 'shape' must not be empty"},
      {"tanh",
       {{"shape", {2, int64_t{1} << 31}}},
       "tanh: argument 'shape' entries must be below 2^31"},
      {"leaky_relu",
       {{"shape", {2}}, {"alpha", "x"}},
       "leaky_relu: argument 'alpha' must be a number"},
      {"clip",
       {{"shape", {2}}, {"min", 1}, {"max", 0}},
       "clip: argument 'min' must not exceed argument 'max'"},
      {"clip", {{"shape", {2}}, {"min", 1}}, "clip: missing argument 'max'"},
      {"add",
       {{"a_shape", {2, 3}}, {"b_shape", {4}}},
       "add: arguments 'a_shape' [2, 3] and 'b_shape' [4] do not broadcast"},
      {"minimum", {{"a_shape", {2, 3}}}, "minimum: missing argument 'b_shape'"},
      {"concatenate",
       {{"shapes", {{2, 3}, {2}}}, {"axis", 0}},
       "concatenate: argument 'shapes' must be a non-empty list of shapes of one rank"},
      {"concatenate",
       {{"shapes", {{2, 3}, {3, 3}}}, {"axis", 1}},
       "concatenate: argument 'shapes': concatenate"},
      {"concatenate",
       {{"shapes", {{2, 3}}}, {"axis", 2}},
       "concatenate: argument 'axis' must be below the rank 2"},
      {"reshape",
       {{"shape", {2, 3}}, {"newshape", {4, -1}}},
       "reshape: argument 'newshape': reshape"},
      {"flatten",
       {{"shape", {2, 3, 4}}, {"axis", 4}},
       "flatten: argument 'axis' must be at most the rank 3"},
      {"flatten",
       {{"shape", {2, 3, 4}}, {"axis", -1}},
       "flatten: argument 'axis' must be at least 0"},
      {"transpose",
       {{"shape", {2, 3}}, {"axes", {0, 0}}},
       "transpose: argument 'axes': transpose: axes [0, 0] repeats dimension 0"},
      {"transpose",
       {{"shape", {2, 3}}, {"axes", {0, 2}}},
       "transpose: argument 'axes' must be a permutation of 0..1"},
      {"pad",
       {{"shape", {2, 3}}, {"pad_before", {0}}, {"pad_after", {0, 0}}},
       "pad: argument 'pad_before' must be a list of 2 integers"},
      {"layout_transform",
       {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHW8c"}},
       "layout_transform: argument 'dst': block 8 of axis C does not divide its extent 12"},
      {"layout_transform",
       {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NHWC8"}},
       "layout_transform: argument 'dst': layout \"NHWC8\""},
      {"layout_transform",
       {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCH"}},
       "layout_transform: argument 'dst' \"NCH\" must have the axes of 'src' \"NCHW\""},
      {"take",
       {{"data_shape", {4, 5}}, {"indices_shape", {3}}, {"axis", 2}},
       "take: argument 'axis' must be below the rank 2 of 'data_shape'"},
      {"take", {{"data_shape", {4, 5}}}, "take: missing argument 'indices_shape'"},
      {"cast",
       {{"shape", {2}}, {"from", "float16"}, {"to", "int32"}},
       "cast: argument 'from': 'float16' is none of float32, float64, int32, int64"},
      {"cast",
       {{"shape", {2}}, {"from", "int64"}, {"to", "uint8"}},
       "cast: argument 'to': 'uint8' is none of float32, float64, int32, int64"},
      {"cast", {{"shape", {2}}, {"from", "int64"}}, "cast: missing argument 'to'"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<LogicalSignature> s = LogicalSignatureOf(c.op, c.args);
    ASSERT_FALSE(s.ok()) << c.op << " " << c.args.dump() << " was accepted";
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.message)) << c.op;
  }
}

}  // namespace
}  // namespace tessel::ops
