// The operators' logical signatures (compiler/ops/logical_op.h) against two independent sources:
//  - every registered template: for representative arguments of its operator, the untuned
//    program's logical inputs and outputs equal the signature's (names, shapes, element types,
//    value ranges); arguments the signature rejects every template of the operator rejects, and
//    arguments it accepts at least one template accepts (conv2d's other templates take only
//    some). A template of an operator without arguments here fails the test.
//  - libtorch (baselines/torch/reference.h): its outputs on inputs drawn from the signature have
//    the signature's output shapes and types, and conv2d_transpose's NCHW compute (which only the
//    signature uses) computes what libtorch does.
#include "compiler/ops/logical_op.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "baselines/torch/reference.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/conv_args.h"
#include "compiler/support/check.h"
#include "compiler/target/target_facts.h"

namespace tessel::ops {
namespace {

using testing::SquareConvArgs;

struct Case {
  std::string op;
  OpArgs args;
};

OpArgs Conv(int64_t n, int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t kh, int64_t kw,
            std::vector<int64_t> stride, std::vector<int64_t> pad, std::vector<int64_t> dilation,
            int64_t groups) {
  return {{"n", n},          {"ic", ic}, {"h", h},           {"w", w},     {"oc", oc},
          {"kh", kh},        {"kw", kw}, {"stride", stride}, {"pad", pad}, {"dilation", dilation},
          {"groups", groups}};
}

OpArgs ConvTranspose(int64_t ic, int64_t h, int64_t w, int64_t oc, int64_t kh, int64_t kw,
                     std::vector<int64_t> stride, std::vector<int64_t> pad,
                     std::vector<int64_t> output_padding) {
  return {
      {"n", 1},   {"ic", ic}, {"h", h},           {"w", w},     {"oc", oc},
      {"kh", kh}, {"kw", kw}, {"stride", stride}, {"pad", pad}, {"output_padding", output_padding}};
}

OpArgs BitserialConv(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t stride, int64_t pad,
                     int64_t activation_bits, int64_t weight_bits, bool unipolar) {
  return {{"n", 1},
          {"ic", ic},
          {"h", hw},
          {"w", hw + 1},
          {"oc", oc},
          {"kh", k},
          {"kw", k},
          {"stride", {stride, 1}},
          {"pad", {pad, pad, pad, pad}},
          {"activation_bits", activation_bits},
          {"weight_bits", weight_bits},
          {"unipolar", unipolar}};
}

OpArgs Pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw,
            std::vector<int64_t> stride, std::vector<int64_t> pad, bool ceil_mode) {
  return {{"n", n},           {"c", c},     {"h", h},
          {"w", w},           {"kh", kh},   {"kw", kw},
          {"stride", stride}, {"pad", pad}, {"ceil_mode", ceil_mode}};
}

OpArgs With(OpArgs args, const std::string& key, OpArgs value) {
  args[key] = std::move(value);
  return args;
}

// Arguments every operator's signature accepts: the templates' own test arguments and the
// variants that change the shapes' arithmetic (groups, strides, dilation, ceil mode, axes).
std::vector<Case> AcceptedCases() {
  std::vector<Case> cases = {
      {"conv2d", SquareConvArgs(16, 10, 32, 3, 1, 1)},
      {"conv2d", SquareConvArgs(8, 7, 24, 1, 1, 0)},
      {"conv2d", SquareConvArgs(12, 9, 8, 3, 2, 1, 4)},     // grouped, strided
      {"conv2d", SquareConvArgs(32, 12, 32, 3, 1, 1, 32)},  // depthwise
      {"conv2d", SquareConvArgs(16, 14, 16, 3, 2, 1, 16)},  // depthwise, strided
      {"conv2d", Conv(2, 6, 11, 13, 10, 3, 5, {2, 3}, {1, 2, 0, 1}, {2, 1}, 2)},  // dilated
      {"conv2d", Conv(1, 8, 9, 11, 8, 3, 3, {1, 1}, {1, 0, 1, 2}, {1, 1}, 1)},    // Winograd's
      {"conv2d_transpose", ConvTranspose(16, 5, 5, 8, 4, 4, {2, 2}, {1, 1, 1, 1}, {0, 0})},
      {"conv2d_transpose", ConvTranspose(8, 4, 6, 4, 3, 5, {2, 3}, {0, 1, 2, 4}, {1, 2})},
      {"conv2d_transpose", ConvTranspose(4, 6, 6, 6, 3, 3, {1, 1}, {1, 1, 1, 1}, {0, 0})},
      {"dense", {{"m", 8}, {"n", 48}, {"k", 40}, {"bias", true}}},
      {"dense", {{"m", 1}, {"n", 10}, {"k", 7}}},
      {"matmul", {{"m", 19}, {"n", 48}, {"k", 23}}},
      {"matmul", {{"m", 1}, {"n", 1}, {"k", 1}}},
      {"batch_matmul", {{"batch", 3}, {"m", 11}, {"n", 24}, {"k", 13}}},
      {"batch_matmul", {{"batch", 1}, {"m", 4}, {"n", 5}, {"k", 6}}},
      {"rnn_cell", {{"batch", 2}, {"input", 24}, {"hidden", 16}}},
      {"rnn_cell", {{"batch", 1}, {"input", 5}, {"hidden", 3}}},
      {"lstm_cell", {{"batch", 2}, {"input", 24}, {"hidden", 16}}},
      {"lstm_cell", {{"batch", 3}, {"input", 7}, {"hidden", 9}}},
      {"bitserial_dense",
       {{"m", 4}, {"n", 32}, {"k", 64}, {"activation_bits", 2}, {"weight_bits", 1}}},
      {"bitserial_dense",
       {{"m", 3}, {"n", 5}, {"k", 70}, {"activation_bits", 3}, {"unipolar", false}}},
      {"bitserial_conv2d", BitserialConv(32, 8, 32, 3, 1, 1, 2, 1, true)},
      {"bitserial_conv2d", BitserialConv(40, 6, 3, 3, 2, 1, 3, 1, false)},
      {"bitserial_conv2d", BitserialConv(32, 5, 16, 1, 1, 0, 1, 2, true)},
      {"max_pool2d", Pool(1, 5, 11, 9, 3, 2, {2, 1}, {0, 1, 2, 0}, false)},
      {"max_pool2d", Pool(1, 3, 9, 8, 3, 3, {2, 2}, {1, 0, 1, 0}, true)},
      {"max_pool2d", Pool(2, 4, 7, 7, 2, 2, {2, 2}, {0, 0, 0, 0}, true)},
      {"avg_pool2d",
       With(Pool(2, 3, 10, 12, 4, 3, {3, 2}, {1, 0, 0, 2}, false), "count_include_pad", true)},
      {"avg_pool2d",
       With(Pool(1, 2, 10, 10, 3, 3, {2, 2}, {1, 1, 1, 1}, true), "count_include_pad", true)},
      {"avg_pool2d", Pool(1, 2, 6, 5, 2, 3, {1, 2}, {0, 1, 1, 1}, true)},
      {"global_avg_pool2d", {{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}}},
      {"global_max_pool2d", {{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}}},
      {"batch_norm", {{"n", 2}, {"c", 5}, {"h", 9}, {"w", 12}}},
      {"batch_norm", {{"n", 1}, {"c", 3}, {"h", 4}, {"w", 4}, {"epsilon", 1e-3}}},
      {"leaky_relu", {{"shape", {4, 33}}, {"alpha", 0.2}}},
      {"clip", {{"shape", {3, 7, 29}}, {"min", -0.3}, {"max", 0.4}}},
      {"concatenate", {{"shapes", {{2, 3, 40}, {2, 5, 40}}}, {"axis", 1}}},
      {"concatenate", {{"shapes", {{4}, {5}, {6}}}, {"axis", 0}}},
      {"concatenate", {{"shapes", {{2, 3, 4}, {2, 3, 1}}}, {"axis", -1}}},
      {"reshape", {{"shape", {4, 6, 10}}, {"newshape", {3, 8, 10}}}},
      {"reshape", {{"shape", {2, 3, 4}}, {"newshape", {-1}}}},
      {"reshape", {{"shape", {24}}, {"newshape", {2, -1, 4}}}},
      {"flatten", {{"shape", {3, 7, 5}}, {"axis", 2}}},
      {"flatten", {{"shape", {2, 3, 4}}}},
      {"flatten", {{"shape", {2, 3, 4}}, {"axis", 0}}},
      {"flatten", {{"shape", {2, 3, 4}}, {"axis", 3}}},
      {"transpose", {{"shape", {6, 5, 33}}, {"axes", {1, 0, 2}}}},
      {"transpose", {{"shape", {2, 3, 4, 5}}, {"axes", {3, 1, -4, 2}}}},
      {"transpose", {{"shape", {7, 9}}, {"axes", {1, 0}}}},
      {"pad", {{"shape", {2, 5, 19}}, {"pad_before", {0, 1, 3}}, {"pad_after", {1, 0, 2}}}},
      {"pad", {{"shape", {3, 4}}, {"pad_before", {1, 1}}, {"pad_after", {0, 2}}, {"value", 1.5}}},
      {"layout_transform", {{"shape", {1, 32, 5, 7}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}},
      {"layout_transform", {{"shape", {1, 4, 5, 7, 8}}, {"src", "NCHW8c"}, {"dst", "NCHW"}}},
      {"layout_transform", {{"shape", {1, 2, 3, 3, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW8c"}}},
      {"layout_transform", {{"shape", {2, 3, 4, 5}}, {"src", "NCHW"}, {"dst", "NHWC"}}},
      {"take", {{"data_shape", {50, 64}}, {"indices_shape", {12}}}},
      {"take", {{"data_shape", {5, 6, 7}}, {"indices_shape", {2, 3}}, {"axis", -2}}},
      {"take", {{"data_shape", {3, 4}}, {"indices_shape", {2}}, {"axis", 1}}},
      {"cast", {{"shape", {3, 7, 29}}, {"from", "float32"}, {"to", "int32"}}},
      {"cast", {{"shape", {5}}, {"from", "int64"}, {"to", "float32"}}},
      {"cast", {{"shape", {2, 3}}, {"from", "int64"}, {"to", "int32"}}},
      {"cast", {{"shape", {4, 6}}, {"from", "int32"}, {"to", "float64"}}},
      {"cast", {{"shape", {7}}, {"from", "int32"}, {"to", "int64"}}},
      {"cast", {{"shape", {2, 5}}, {"from", "float64"}, {"to", "float64"}}},
      {"quantize", {{"shape", {3, 7, 29}}, {"scale", 0.02}}},
      {"dequantize", {{"shape", {5, 21}}, {"scale", 0.3}}},
      {"conv2d_int8", With(SquareConvArgs(16, 10, 32, 3, 1, 1), "shift", 9)},
      {"conv2d_int8", SquareConvArgs(8, 7, 24, 1, 2, 0)},
      {"dense_int8", {{"m", 3}, {"n", 18}, {"k", 50}, {"shift", 8}, {"relu", true}}},
      {"dense_int8", {{"m", 1}, {"n", 10}, {"k", 7}}},
  };
  for (const nn::UnaryOp& unary : nn::UnaryOps()) {
    if (std::string(unary.name) == "clip") continue;  // needs min and max
    cases.push_back({unary.name, {{"shape", {3, 7, 29}}}});
    cases.push_back({unary.name, {{"shape", {5}}}});
  }
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const char* op = nn::BinaryOpName(kind);
    cases.push_back({op, {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}});
    cases.push_back({op, {{"a_shape", {3, 1, 37}}, {"b_shape", {4, 1}}}});
    cases.push_back({op, {{"a_shape", {6}}, {"b_shape", {6}}}});
  }
  cases.push_back({"lrn", {{"n", 1}, {"c", 6}, {"h", 3}, {"w", 5}, {"size", 3}}});
  cases.push_back({"layer_norm", {{"shape", {3, 75}}}});
  cases.push_back({"layer_norm", {{"shape", {2, 3, 20}}, {"axis", 1}, {"epsilon", 1e-12}}});
  for (const nn::ReduceOp& reduce : nn::ReduceOps()) {
    cases.push_back({reduce.name, {{"shape", {3, 5, 40}}, {"axes", {1}}}});
    cases.push_back({reduce.name, {{"shape", {2, 3, 7}}, {"axes", {1, 2}}, {"keepdims", false}}});
  }
  for (const char* op : {"softmax", "log_softmax"}) {
    cases.push_back({op, {{"shape", {3, 5, 40}}, {"axis", 1}}});
    cases.push_back({op, {{"shape", {3, 75}}}});
    cases.push_back({op, {{"shape", {2, 3, 4}}, {"axis", 0}}});
    cases.push_back({op, {{"shape", {2, 3, 4}}, {"axis", -1}}});
  }
  return cases;
}

// Arguments every template of the operator and its signature reject.
std::vector<Case> RejectedCases() {
  const OpArgs conv = SquareConvArgs(4, 8, 6, 3, 1, 1);
  const OpArgs transpose = ConvTranspose(4, 5, 5, 6, 4, 4, {2, 2}, {1, 1, 1, 1}, {0, 0});
  const OpArgs pool = Pool(1, 2, 5, 5, 2, 2, {1, 1}, {0, 0, 0, 0}, false);
  OpArgs no_oc = conv;
  no_oc.erase("oc");
  std::vector<Case> cases = {
      {"conv2d", no_oc},
      {"conv2d", With(conv, "groups", 3)},
      {"conv2d_int8", With(conv, "groups", 2)},
      {"dense_int8", {{"m", 1}, {"n", 2}, {"k", 3}, {"relu", true}}},
      {"dense_int8", {{"m", 1}, {"n", 2}, {"k", 3}, {"shift", 32}}},
      {"quantize", {{"shape", {4}}, {"scale", 0}}},
      {"conv2d", With(With(conv, "kh", 11), "kw", 11)},
      {"conv2d_transpose", With(transpose, "output_padding", {2, 0})},
      {"conv2d_transpose", With(transpose, "pad", {4, 0, 0, 0})},
      {"bitserial_conv2d", With(conv, "groups", 2)},
      {"bitserial_conv2d", With(With(conv, "weight_bits", 2), "unipolar", false)},
      {"bitserial_dense", {{"m", 1}, {"n", 2}, {"k", 3}, {"activation_bits", 9}}},
      {"dense", {{"m", 0}, {"n", 2}, {"k", 3}}},
      {"dense", {{"m", 1}, {"n", 2}, {"k", 3}, {"bias", "yes"}}},
      {"matmul", {{"m", 1}, {"n", 2}}},
      {"batch_matmul", {{"m", 1}, {"n", 2}, {"k", 3}}},
      {"rnn_cell", {{"batch", 1}, {"input", 2}, {"hidden", 0}}},
      {"lstm_cell", {{"batch", 1}, {"input", 2}}},
      {"max_pool2d", With(pool, "pad", {2, 0, 0, 0})},
      {"avg_pool2d", With(pool, "kh", 7)},
      {"max_pool2d", With(pool, "stride", {0, 1})},
      {"global_avg_pool2d", {{"n", 1}, {"c", 2}, {"h", 3}}},
      {"batch_norm", {{"n", 1}, {"c", 2}, {"h", 3}, {"w", 4}, {"epsilon", -1}}},
      {"relu", {{"shape", OpArgs::array()}}},
      {"leaky_relu", {{"shape", {2}}, {"alpha", "x"}}},
      {"clip", {{"shape", {2}}, {"min", 1}, {"max", 0}}},
      {"add", {{"a_shape", {2, 3}}, {"b_shape", {4}}}},
      {"softmax", {{"shape", {2, 3}}, {"axis", 2}}},
      {"log_softmax", {{"shape", {2, 3}}, {"axis", -3}}},
      {"layer_norm", {{"shape", {2, 3}}, {"axis", 2}}},
      {"layer_norm", {{"shape", {2, 3}}, {"epsilon", -1e-5}}},
      {"concatenate", {{"shapes", {{2, 3}, {2}}}, {"axis", 0}}},
      {"concatenate", {{"shapes", {{2, 3}, {3, 3}}}, {"axis", 1}}},
      {"concatenate", {{"shapes", {{2, 3}}}, {"axis", 2}}},
      {"reshape", {{"shape", {2, 3}}, {"newshape", {4, -1}}}},
      {"reshape", {{"shape", {1}}, {"newshape", OpArgs::array()}}},
      {"flatten", {{"shape", {2, 3, 4}}, {"axis", 4}}},
      {"flatten", {{"shape", {2, 3, 4}}, {"axis", -1}}},
      {"transpose", {{"shape", {2, 3}}, {"axes", {0, 0}}}},
      {"transpose", {{"shape", {2, 3}}, {"axes", {0, 2}}}},
      {"pad", {{"shape", {2, 3}}, {"pad_before", {0}}, {"pad_after", {0, 0}}}},
      {"pad", {{"shape", {2, 3}}, {"pad_before", {0, -1}}, {"pad_after", {0, 0}}}},
      {"layout_transform", {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}},
      {"layout_transform", {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NHWC8"}}},
      {"layout_transform", {{"shape", {1, 12, 2, 2}}, {"src", "NCHW"}, {"dst", "NCH"}}},
      {"take", {{"data_shape", {4, 5}}, {"indices_shape", {3}}, {"axis", 2}}},
      {"take", {{"data_shape", {4, 5}}}},
      {"cast", {{"shape", {2, 3}}, {"from", "bool"}, {"to", "int32"}}},
      {"cast", {{"shape", {2, 3}}, {"from", "int32"}}},
  };
  return cases;
}

const target::TargetFacts& Facts() {
  static const auto* const facts = [] {
    absl::StatusOr<target::TargetFacts> f = target::DescribeTarget(target::Target::Llvm());
    TESSEL_CHECK(f.ok()) << f.status().message();
    return new target::TargetFacts(*f);
  }();
  return *facts;
}

std::string TypeName(const DLDataType& t) {
  const char* code = t.code == kDLFloat ? "float" : t.code == kDLInt ? "int" : "uint";
  return absl::StrCat(code, t.bits, t.lanes == 1 ? "" : absl::StrCat("x", t.lanes));
}

// Everything a spec says, one line each.
std::vector<std::string> Describe(const std::vector<TensorSpec>& specs) {
  std::vector<std::string> out;
  for (const TensorSpec& s : specs) {
    out.push_back(absl::StrCat(s.name, " ", TypeName(s.dtype), "[", absl::StrJoin(s.shape, ", "),
                               "] in [", s.low, ", ", s.high, ")"));
  }
  return out;
}

std::vector<const Template*> TemplatesOf(const std::string& op) {
  std::vector<const Template*> out;
  for (const Template* t : AllTemplates()) {
    if (t->op == op) out.push_back(t);
  }
  return out;
}

TEST(LogicalOpX86Test, EveryTemplateTakesAndGivesItsOperatorsSignature) {
  std::map<std::string, int> compared;  // template name -> cases compared
  for (const Case& c : AcceptedCases()) {
    const std::string what = absl::StrCat(c.op, " ", c.args.dump());
    absl::StatusOr<LogicalSignature> sig = LogicalSignatureOf(c.op, c.args);
    ASSERT_TRUE(sig.ok()) << what << ": " << sig.status();
    const std::vector<const Template*> templates = TemplatesOf(c.op);
    ASSERT_FALSE(templates.empty()) << what << ": no template";
    int accepted = 0;
    for (const Template* t : templates) {
      absl::StatusOr<Instantiated> inst = InstantiateFallback(*t, c.args, Facts());
      if (!inst.ok()) continue;  // a restriction of this template (checked below: not of all)
      ++accepted;
      ++compared[t->name];
      EXPECT_EQ(Describe(inst->program.logical_inputs), Describe(sig->inputs))
          << t->name << " " << what;
      EXPECT_EQ(Describe(inst->program.logical_outputs), Describe(sig->outputs))
          << t->name << " " << what;
    }
    EXPECT_GT(accepted, 0) << what << ": the signature accepts it, no template does";
  }
  std::vector<std::string> missing;
  for (const Template* t : AllTemplates()) {
    if (compared[t->name] == 0) missing.push_back(t->name);
  }
  EXPECT_TRUE(missing.empty()) << "templates compared with no signature (add arguments above): "
                               << absl::StrJoin(missing, ", ");
}

TEST(LogicalOpX86Test, ArgumentsTheSignatureRejectsEveryTemplateRejects) {
  for (const Case& c : RejectedCases()) {
    const std::string what = absl::StrCat(c.op, " ", c.args.dump());
    absl::StatusOr<LogicalSignature> sig = LogicalSignatureOf(c.op, c.args);
    ASSERT_FALSE(sig.ok()) << what << " was accepted";
    EXPECT_EQ(sig.status().code(), absl::StatusCode::kInvalidArgument) << what;
    EXPECT_EQ(std::string(sig.status().message()).rfind(c.op + ": ", 0), 0u)
        << "the message does not start with the operator: " << sig.status();
    for (const Template* t : TemplatesOf(c.op)) {
      absl::StatusOr<search::ConfigSpace> space = t->space(c.args, Facts());
      EXPECT_FALSE(space.ok()) << t->name << " accepts " << what << ", rejected as "
                               << sig.status();
    }
  }
}

TEST(LogicalOpX86Test, EveryTemplatesOperatorHasASignature) {
  const std::vector<std::string> names = LogicalOpNames();
  const std::set<std::string> known(names.begin(), names.end());
  for (const Template* t : AllTemplates()) {
    EXPECT_TRUE(known.count(t->op)) << t->name << "'s operator " << t->op;
  }
}

// libtorch computes each operator on inputs drawn from the signature's input specs: its outputs
// have the signature's shapes and element types.
TEST(LogicalOpX86Test, TorchOutputsHaveTheSignaturesTypes) {
  const std::vector<std::string> torch_ops = baselines::TorchReferenceOps();
  const std::set<std::string> with_reference(torch_ops.begin(), torch_ops.end());
  int checked = 0;
  for (const Case& c : AcceptedCases()) {
    if (!with_reference.count(c.op)) continue;
    const std::string what = absl::StrCat(c.op, " ", c.args.dump());
    absl::StatusOr<LogicalSignature> sig = LogicalSignatureOf(c.op, c.args);
    ASSERT_TRUE(sig.ok()) << what << ": " << sig.status();
    absl::StatusOr<std::vector<runtime::NDArray>> out =
        baselines::TorchReference(c.op, c.args, RandomInputs(sig->inputs, 7));
    ASSERT_TRUE(out.ok()) << what << ": " << out.status();
    ASSERT_EQ(out->size(), sig->outputs.size()) << what;
    for (size_t i = 0; i < out->size(); ++i) {
      const runtime::NDArray& a = (*out)[i];
      EXPECT_EQ(a.shape(), sig->outputs[i].shape) << what << " output " << i;
      EXPECT_EQ(TypeName(a.dtype()), TypeName(sig->outputs[i].dtype)) << what << " output " << i;
    }
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// The signature builds conv2d_transpose from nn's NCHW compute, which no template schedules: its
// unscheduled program, compiled, computes what libtorch does.
TEST(LogicalOpX86Test, Conv2dTransposeNchwComputeMatchesTorch) {
  const target::Target host = target::Target::Llvm();
  for (const Case& c : AcceptedCases()) {
    if (c.op != "conv2d_transpose") continue;
    const std::string what = c.args.dump();
    absl::StatusOr<nn::Conv2dTransposeAttrs> a = nn::ReadConv2dTransposeAttrs(c.op, c.args);
    ASSERT_TRUE(a.ok()) << a.status();
    const nn::Conv2dTransposeNchw conv = nn::MakeConv2dTransposeNchw(*a);
    absl::StatusOr<LogicalSignature> sig = LogicalSignatureOf(c.op, c.args);
    ASSERT_TRUE(sig.ok()) << sig.status();
    OpProgram p;
    p.schedule = schedule::create_schedule({conv.out.op()});
    p.args = {conv.data, conv.weight, conv.out};
    p.logical_inputs = sig->inputs;
    p.logical_outputs = sig->outputs;
    absl::StatusOr<runtime::Function> f = CompileProgram(p, "conv2d_transpose_nchw", host);
    ASSERT_TRUE(f.ok()) << what << ": " << f.status();
    const std::vector<runtime::NDArray> inputs = RandomInputs(sig->inputs, 3);
    absl::StatusOr<std::vector<runtime::NDArray>> got = RunLogical(p, *f, inputs);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status();
    absl::StatusOr<std::vector<runtime::NDArray>> want =
        baselines::TorchReference(c.op, c.args, inputs);
    ASSERT_TRUE(want.ok()) << what << ": " << want.status();
    EXPECT_TRUE(CompareOutputs(*got, *want, Tolerance{}).ok())
        << what << ": " << CompareOutputs(*got, *want, Tolerance{});
  }
}

}  // namespace
}  // namespace tessel::ops
