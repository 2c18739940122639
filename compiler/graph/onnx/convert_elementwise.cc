// Element-wise operators: the broadcasting binaries (and their variadic forms Sum, Mean, Max,
// Min), Pow, the activations and the other functions of one input (compiler/ops/nn/unary.h),
// Clip and PRelu. Tensors known at import are computed here.
#include <absl/strings/str_cat.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "compiler/graph/onnx/converters.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

NDArray Scalar(float v) { return Float32Tensor({v}, {1}); }

// An operand of an element-wise chain: a tensor known at import, or a graph value. `input` is
// the node input it is (-1 for an intermediate), so a known input keeps its ONNX name when it
// becomes a graph constant.
struct Term {
  NDArray constant;
  ValueId value = kInvalid;
  int input = -1;
};

Term InputTerm(NodeContext& c, int i) {
  Term t;
  t.input = i;
  if (c.IsConstant(i)) {
    absl::StatusOr<NDArray> k = c.Constant(i, "operand");
    if (k.ok()) t.constant = *k;
  }
  return t;
}

std::vector<int64_t> ShapeOf(NodeContext& c, const Term& t) {
  return t.constant.defined() ? t.constant.shape() : c.TypeOf(t.value).shape;
}

// The term as a graph value (a constant of float32 or of a type the operators keep).
absl::StatusOr<ValueId> AsValue(NodeContext& c, const Term& t, const std::string& role) {
  if (t.input >= 0) return c.KeptTypeValue(t.input);
  if (!t.constant.defined()) return t.value;
  if (!runtime::SameDLType(t.constant.dtype(), kFloat32) && !KeptElementType(t.constant.dtype())) {
    return c.Unsupported(absl::StrCat("an operand of element type ",
                                      runtime::DLTypeToString(t.constant.dtype()),
                                      "; Tessel's operators compute float32"));
  }
  return c.NewConstant(role, t.constant);
}

// Refuses what the operator library does not compute in a kept type: integer division (ONNX
// truncates) and a power of anything but float32.
absl::Status CheckKeptType(NodeContext& c, BinaryOp op, DLDataType t) {
  if (!KeptElementType(t)) return absl::OkStatus();
  const bool integer = t.code == kDLInt;
  if (op == BinaryOp::kPow || (op == BinaryOp::kDiv && integer)) {
    return c.Unsupported(absl::StrCat("operands of element type ", runtime::DLTypeToString(t)));
  }
  return absl::OkStatus();
}

// Legacy broadcasting (opset < 7, broadcast = 1 with `axis`): B's axes line up with A's from
// `axis`, so B gains trailing axes of extent 1.
absl::StatusOr<Term> LegacyBroadcast(NodeContext& c, const Term& a, Term b) {
  if (c.opset() >= 7 || !c.HasAttr("axis")) return b;
  TESSEL_ASSIGN_OR_RETURN(const int64_t broadcast, c.Int("broadcast", 0));
  if (broadcast == 0) return b;
  const std::vector<int64_t> as = ShapeOf(c, a), bs = ShapeOf(c, b);
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, c.Int("axis", 0));
  absl::StatusOr<int64_t> normalized = NormalizeAxis(axis, as.size(), "attribute 'axis'");
  if (!normalized.ok()) return c.Invalid(std::string(normalized.status().message()));
  const int64_t trailing = static_cast<int64_t>(as.size()) - *normalized - bs.size();
  if (trailing < 0) return c.Invalid("attribute 'axis' leaves too few axes for B");
  std::vector<int64_t> shape = bs;
  shape.resize(bs.size() + trailing, 1);
  if (b.constant.defined()) {
    TESSEL_ASSIGN_OR_RETURN(b.constant, Reshaped(b.constant, shape, c.budget()));
    b.input = -1;
    return b;
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId v, AsValue(c, b, "b"));
  return Term{NDArray(), c.Reshape(v, shape, "broadcast_b"), -1};
}

const char* GraphOp(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSub:
      return "subtract";
    case BinaryOp::kMul:
      return "multiply";
    case BinaryOp::kDiv:
      return "divide";
    case BinaryOp::kMax:
      return "maximum";
    case BinaryOp::kPow:
      return "power";
    default:
      return "minimum";
  }
}

// a op b: computed here when both are known, else a graph node (named after the ONNX node when
// `last`). A scalar beside a tensor becomes [1] (the same broadcast).
absl::StatusOr<Term> Combine(NodeContext& c, BinaryOp op, const Term& a, const Term& b, bool last,
                             int step) {
  if (a.constant.defined() && b.constant.defined()) {
    absl::StatusOr<NDArray> r = Binary(op, a.constant, b.constant, c.budget());
    if (!r.ok()) return c.Invalid(std::string(r.status().message()));
    return Term{*r, kInvalid, -1};
  }
  // The operator library takes no rank-0 tensors: a scalar beside a tensor becomes [1], which
  // broadcasts the same.
  Term at = a, bt = b;
  for (Term* t : {&at, &bt}) {
    const Term& other = t == &at ? b : a;
    if (!ShapeOf(c, *t).empty() || ShapeOf(c, other).empty()) continue;
    if (t->constant.defined()) {
      absl::StatusOr<NDArray> one = Reshaped(t->constant, {1}, c.budget());
      if (!one.ok()) return c.Annotate(one.status());
      *t = Term{*one, kInvalid, -1};
    } else {
      TESSEL_ASSIGN_OR_RETURN(const ValueId v, AsValue(c, *t, "scalar"));
      *t = Term{NDArray(), c.Reshape(v, {1}, absl::StrCat("scalar_", step)), -1};
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, AsValue(c, at, absl::StrCat("operand_", step)));
  TESSEL_ASSIGN_OR_RETURN(const ValueId y, AsValue(c, bt, absl::StrCat("operand_", step + 1)));
  if (x != kInvalid) TESSEL_RETURN_IF_ERROR(CheckKeptType(c, op, c.TypeOf(x).dtype));
  return Term{NDArray(), c.Op(GraphOp(op), {x, y}, {}, last ? "" : absl::StrCat("step_", step)),
              -1};
}

absl::Status SetTerm(NodeContext& c, const Term& t) {
  if (t.input >= 0) {
    c.Forward(0, t.input);
  } else if (t.constant.defined()) {
    c.SetOutput(0, t.constant);
  } else {
    c.SetOutput(0, t.value);
  }
  return absl::OkStatus();
}

// The inputs combined left to right (a binary operator, or a variadic one); the last step
// carries the node's name when `named`.
absl::StatusOr<Term> Fold(NodeContext& c, BinaryOp op, bool named) {
  if (c.NumInputs() < 1) return c.Invalid("no inputs");
  Term acc = InputTerm(c, 0);
  if (!acc.constant.defined()) {
    TESSEL_ASSIGN_OR_RETURN(acc.value, c.KeptTypeValue(0));
  }
  for (int i = 1; i < c.NumInputs(); ++i) {
    Term next = InputTerm(c, i);
    if (!next.constant.defined()) {
      TESSEL_ASSIGN_OR_RETURN(next.value, c.KeptTypeValue(i));
    }
    TESSEL_ASSIGN_OR_RETURN(next, LegacyBroadcast(c, acc, next));
    TESSEL_ASSIGN_OR_RETURN(acc, Combine(c, op, acc, next, named && i + 1 == c.NumInputs(), i));
  }
  return acc;
}

absl::Status ConvertBinary(NodeContext& c, BinaryOp op) {
  TESSEL_ASSIGN_OR_RETURN(const Term result, Fold(c, op, true));
  return SetTerm(c, result);
}

// Mean = Sum / count.
absl::Status ConvertMean(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const Term sum, Fold(c, BinaryOp::kAdd, false));
  if (c.NumInputs() == 1) return SetTerm(c, sum);
  Term count{Scalar(static_cast<float>(c.NumInputs())), kInvalid, -1};
  if (sum.constant.defined() && !runtime::SameDLType(sum.constant.dtype(), kFloat32)) {
    return c.Unsupported("Mean of non-float32 tensors");
  }
  TESSEL_ASSIGN_OR_RETURN(const Term mean,
                          Combine(c, BinaryOp::kDiv, sum, count, true, c.NumInputs()));
  return SetTerm(c, mean);
}

absl::Status ConvertActivation(NodeContext& c, const char* op, nlohmann::json attrs) {
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  c.SetOutput(0, c.Op(op, {x}, std::move(attrs)));
  return absl::OkStatus();
}

absl::Status ConvertUnaryKnown(NodeContext& c, UnaryOp op) {
  TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(0, "x"));
  absl::StatusOr<NDArray> y = Unary(op, x, c.budget());
  if (!y.ok()) return c.Invalid(std::string(y.status().message()));
  c.SetOutput(0, *y);
  return absl::OkStatus();
}

absl::Status ConvertRelu(NodeContext& c) {
  if (c.IsConstant(0)) return ConvertUnaryKnown(c, UnaryOp::kRelu);
  return ConvertActivation(c, "relu", nlohmann::json::object());
}

absl::Status ConvertNeg(NodeContext& c) {
  if (c.IsConstant(0)) return ConvertUnaryKnown(c, UnaryOp::kNeg);
  return ConvertActivation(c, "negative", nlohmann::json::object());
}

absl::Status ConvertAbs(NodeContext& c) {
  if (c.IsConstant(0)) return ConvertUnaryKnown(c, UnaryOp::kAbs);
  return ConvertActivation(c, "abs", nlohmann::json::object());
}

// An activation whose float attributes (ONNX name, graph name, default) pass on as they are.
Converter ActivationWithFloats(const char* op,
                               std::vector<std::tuple<const char*, const char*, float>> floats) {
  return [op, floats](NodeContext& c) -> absl::Status {
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& [onnx_name, name, fallback] : floats) {
      TESSEL_ASSIGN_OR_RETURN(const float v, c.Float(onnx_name, fallback));
      attrs[name] = v;
    }
    return ConvertActivation(c, op, std::move(attrs));
  };
}

// Pow(x, y). A known exponent of any numeric type: 1 forwards x, 2 is x * x, 0.5 is sqrt(x)
// (exact, and what LayerNorm as exported squares with); another is a power node.
absl::Status ConvertPow(NodeContext& c) {
  if (c.IsConstant(0) && c.IsConstant(1)) {
    TESSEL_ASSIGN_OR_RETURN(const Term result, Fold(c, BinaryOp::kPow, true));
    return SetTerm(c, result);
  }
  if (!c.IsConstant(1)) return ConvertBinary(c, BinaryOp::kPow);
  TESSEL_ASSIGN_OR_RETURN(const NDArray y, c.Constant(1, "exponent"));
  absl::StatusOr<NDArray> exponent = Cast(y, kFloat32, c.budget());
  if (!exponent.ok()) return c.Invalid(std::string(exponent.status().message()));
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  const std::vector<int64_t> xs = c.Shape(0);
  absl::StatusOr<std::vector<int64_t>> out = BroadcastShapes(xs, exponent->shape());
  if (!out.ok()) return c.Invalid(std::string(out.status().message()));
  if (*out == xs && exponent->NumElements() == 1) {
    const float e = exponent->data<float>()[0];
    if (e == 1.0f) {
      c.Forward(0, 0);
      return absl::OkStatus();
    }
    if (e == 2.0f) {
      c.SetOutput(0, c.Op("multiply", {x, x}));
      return absl::OkStatus();
    }
    if (e == 0.5f) return ConvertActivation(c, "sqrt", nlohmann::json::object());
  }
  Term a{NDArray(), x, -1}, b{*exponent, kInvalid, -1};
  TESSEL_ASSIGN_OR_RETURN(const Term result, Combine(c, BinaryOp::kPow, a, b, true, 1));
  return SetTerm(c, result);
}

absl::Status ConvertLeakyRelu(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const float alpha, c.Float("alpha", 0.01f));
  return ConvertActivation(c, "leaky_relu", {{"alpha", alpha}});
}

// A bound of Clip: absent, a known value, or a graph value.
struct Bound {
  bool present = false;
  bool known = false;
  float value = 0;
  ValueId graph = kInvalid;
};

absl::StatusOr<Bound> ClipBound(NodeContext& c, int input, const char* attr, float fallback) {
  Bound b;
  if (c.opset() < 11) {
    // Clip-6: an absent bound is the float range's end, which clamps infinities.
    TESSEL_ASSIGN_OR_RETURN(b.value, c.Float(attr, fallback));
    b.present = b.known = true;
    return b;
  }
  if (!c.HasInput(input)) return b;
  b.present = true;
  TESSEL_ASSIGN_OR_RETURN(const NDArray k, c.Float32Constant(input));
  if (k.defined()) {
    absl::StatusOr<double> v = ScalarValue(k, absl::StrCat("input '", attr, "'"));
    if (!v.ok()) return c.Invalid(std::string(v.status().message()));
    b.known = true;
    b.value = ToFloat(*v);
    return b;
  }
  TESSEL_ASSIGN_OR_RETURN(b.graph, c.Float32(input));
  return b;
}

// Clip(x, lo, hi) = min(max(x, lo), hi), which is hi everywhere when lo > hi, as ONNX specifies.
absl::Status ConvertClip(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  TESSEL_ASSIGN_OR_RETURN(const Bound lo,
                          ClipBound(c, 1, "min", std::numeric_limits<float>::lowest()));
  TESSEL_ASSIGN_OR_RETURN(const Bound hi,
                          ClipBound(c, 2, "max", std::numeric_limits<float>::max()));
  if (lo.known && hi.known && std::isfinite(lo.value) && std::isfinite(hi.value) &&
      lo.value <= hi.value) {
    c.SetOutput(0, c.Op("clip", {x}, {{"min", lo.value}, {"max", hi.value}}));
    return absl::OkStatus();
  }
  ValueId y = x;
  if (lo.present) {
    const ValueId bound = lo.known ? c.NewConstant("min", Scalar(lo.value)) : lo.graph;
    y = c.Op("maximum", {y, bound}, {}, hi.present ? "min" : "");
  }
  if (hi.present) {
    const ValueId bound = hi.known ? c.NewConstant("max", Scalar(hi.value)) : hi.graph;
    y = c.Op("minimum", {y, bound});
  }
  c.SetOutput(0, y);
  return absl::OkStatus();
}

// PRelu(x, slope) = relu(x) + slope * min(x, 0). Before opset 7 a slope of C elements is per
// channel (axis 1); from 7 it broadcasts as numpy's.
absl::Status ConvertPRelu(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  const std::vector<int64_t> xs = c.Shape(0);
  std::vector<int64_t> ss = c.Shape(1);
  TESSEL_ASSIGN_OR_RETURN(ValueId slope, c.Float32(1));
  if (c.opset() < 7 && ss.size() == 1 && xs.size() >= 2 && ss[0] == xs[1] && xs.size() > 2) {
    ss.resize(xs.size() - 1, 1);
    slope = c.Reshape(slope, ss, "slope_per_channel");
  }
  const ValueId pos = c.Op("relu", {x}, {}, "positive");
  const ValueId neg = c.Op("minimum", {x, c.NewConstant("zero", Scalar(0.0f))}, {}, "negative");
  const ValueId scaled = c.Op("multiply", {neg, slope}, {}, "scaled");
  c.SetOutput(0, c.Op("add", {pos, scaled}));
  return absl::OkStatus();
}

}  // namespace

void AddElementwiseConverters(ConverterTable& table) {
  table["Add"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kAdd); };
  table["Sub"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kSub); };
  table["Mul"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kMul); };
  table["Div"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kDiv); };
  table["Max"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kMax); };
  table["Min"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kMin); };
  table["Sum"] = [](NodeContext& c) { return ConvertBinary(c, BinaryOp::kAdd); };
  table["Mean"] = ConvertMean;
  table["Relu"] = ConvertRelu;
  table["Sigmoid"] = [](NodeContext& c) {
    return ConvertActivation(c, "sigmoid", nlohmann::json::object());
  };
  table["Tanh"] = [](NodeContext& c) {
    return ConvertActivation(c, "tanh", nlohmann::json::object());
  };
  table["LeakyRelu"] = ConvertLeakyRelu;
  table["Clip"] = ConvertClip;
  table["PRelu"] = ConvertPRelu;
  table["Neg"] = ConvertNeg;
  table["Abs"] = ConvertAbs;
  table["Pow"] = ConvertPow;
  for (const auto& [onnx_op, op] :
       std::vector<std::pair<const char*, const char*>>{{"Exp", "exp"},
                                                        {"Log", "log"},
                                                        {"Sqrt", "sqrt"},
                                                        {"Reciprocal", "reciprocal"},
                                                        {"Floor", "floor"},
                                                        {"Ceil", "ceil"},
                                                        {"Erf", "erf"},
                                                        {"Softplus", "softplus"},
                                                        {"Softsign", "softsign"},
                                                        {"HardSwish", "hard_swish"}}) {
    table[onnx_op] = [op = op](NodeContext& c) {
      return ConvertActivation(c, op, nlohmann::json::object());
    };
  }
  table["Elu"] = ActivationWithFloats("elu", {{"alpha", "alpha", 1.0f}});
  table["Selu"] = ActivationWithFloats("selu", {{"alpha", "alpha", 1.67326319217681884765625f},
                                                {"gamma", "gamma", 1.05070102214813232421875f}});
  table["HardSigmoid"] =
      ActivationWithFloats("hard_sigmoid", {{"alpha", "alpha", 0.2f}, {"beta", "beta", 0.5f}});
  table["ThresholdedRelu"] = ActivationWithFloats("thresholded_relu", {{"alpha", "alpha", 1.0f}});
}

}  // namespace tessel::graph::onnx::internal
