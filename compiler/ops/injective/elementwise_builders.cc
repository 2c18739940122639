// The activations and the broadcasting binary operators as injective computes. Flops: one per
// output element, whatever the operator (sigmoid and tanh included).
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/activation.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

te::Tensor Placeholder(const std::vector<int64_t>& shape, const std::string& name) {
  return te::placeholder(nn::ShapeExprs(shape), ir::kFloat32, name);
}

// An activation of x: f(x) element-wise, f reading its own arguments.
using Activation = std::function<absl::StatusOr<te::Tensor>(const ArgReader&, const te::Tensor&)>;

// The program works on x as one row of all its elements (a view: prepare and finish reshape).
absl::StatusOr<InjectiveOp> BuildActivation(const std::string& name, const OpArgs& args,
                                            const Activation& f, double low = -1, double high = 1) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, reader.Shape("shape"));
  const std::vector<int64_t> flat = {nn::NumElements(shape)};
  InjectiveOp op;
  te::Tensor x = Placeholder(flat, "x");
  TESSEL_ASSIGN_OR_RETURN(op.output, f(reader, x));
  op.inputs = {x};
  op.logical_inputs = {{"x", shape, {kDLFloat, 32, 1}, low, high}};
  op.logical_output_shape = shape;
  op.prepare = ReshapeArrays({flat});
  op.finish = ReshapeArrays({shape});
  return op;
}

}  // namespace

absl::StatusOr<InjectiveOp> BuildRelu(const std::string& name, const OpArgs& args) {
  return BuildActivation(name, args,
                         [](const ArgReader&, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
                           return nn::Relu(x);
                         });
}

absl::StatusOr<InjectiveOp> BuildLeakyRelu(const std::string& name, const OpArgs& args) {
  return BuildActivation(
      name, args, [](const ArgReader& reader, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        TESSEL_ASSIGN_OR_RETURN(double alpha, reader.FloatOr("alpha", 0.01));
        return nn::LeakyRelu(x, alpha);
      });
}

absl::StatusOr<InjectiveOp> BuildSigmoid(const std::string& name, const OpArgs& args) {
  return BuildActivation(
      name, args,
      [](const ArgReader&, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        return nn::Sigmoid(x);
      },
      -8, 8);
}

absl::StatusOr<InjectiveOp> BuildTanh(const std::string& name, const OpArgs& args) {
  return BuildActivation(
      name, args,
      [](const ArgReader&, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        return nn::Tanh(x);
      },
      -5, 5);
}

absl::StatusOr<InjectiveOp> BuildClip(const std::string& name, const OpArgs& args) {
  return BuildActivation(
      name, args,
      [](const ArgReader& reader, const te::Tensor& x) -> absl::StatusOr<te::Tensor> {
        TESSEL_ASSIGN_OR_RETURN(double lo, reader.Float("min"));
        TESSEL_ASSIGN_OR_RETURN(double hi, reader.Float("max"));
        if (lo > hi) return reader.Error("argument 'min' must not exceed argument 'max'");
        return nn::Clip(x, lo, hi);
      },
      -2, 2);
}

// The program works on the collapsed views of a, b and the output (CollapseBroadcast): along
// each axis of the views, each operand is present or broadcast as a whole.
InjectiveBuilder BinaryBuilder(nn::BinaryOp kind) {
  return [kind](const std::string& name, const OpArgs& args) -> absl::StatusOr<InjectiveOp> {
    ArgReader reader(name, args);
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> a_shape, reader.Shape("a_shape"));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> b_shape, reader.Shape("b_shape"));
    absl::StatusOr<std::vector<int64_t>> out = nn::BroadcastShape(a_shape, b_shape);
    if (!out.ok()) {
      return reader.Error(absl::StrCat("arguments 'a_shape' ", ShapeText(a_shape),
                                       " and 'b_shape' ", ShapeText(b_shape),
                                       " do not broadcast: ", out.status().message()));
    }
    const CollapsedViews views = CollapseBroadcast(*out, {a_shape, b_shape});
    InjectiveOp op;
    te::Tensor a = Placeholder(views.operands[0], "a");
    te::Tensor b = Placeholder(views.operands[1], "b");
    TESSEL_ASSIGN_OR_RETURN(op.output, nn::Binary(kind, a, b));
    op.inputs = {a, b};
    // A divisor away from zero keeps the quotients, and so the comparison, well conditioned.
    const bool divide = kind == nn::BinaryOp::kDivide;
    op.logical_inputs = {
        {"a", a_shape}, {"b", b_shape, {kDLFloat, 32, 1}, divide ? 0.5 : -1.0, divide ? 2.0 : 1.0}};
    op.logical_output_shape = *out;
    op.prepare = ReshapeArrays(views.operands);
    op.finish = ReshapeArrays({*out});
    return op;
  };
}

}  // namespace tessel::ops::injective
