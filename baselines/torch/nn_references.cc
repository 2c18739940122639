// Pooling, batch_norm, layer_norm, activations and softmax.
#include <ATen/ATen.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <limits>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/ops/nn/layer_norm.h"
#include "compiler/ops/nn/lrn.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

using runtime::NDArray;

// Torch pools with symmetric padding and its own ceil-mode rule, so the windows of forms.h are
// laid out explicitly: the input is padded (or cropped) to exactly the rows and columns the
// windows cover, (oh - 1) * stride + kh by (ow - 1) * stride + kw, and pooled without padding.
// These are constant_pad_nd's amounts for an input of h x w: (left, right, top, bottom).
std::vector<int64_t> WindowPadding(const Pool2dForm& f) {
  const int64_t covered_h = (f.oh - 1) * f.stride[0] + f.kh;
  const int64_t covered_w = (f.ow - 1) * f.stride[1] + f.kw;
  return {f.pad[1], covered_w - f.w - f.pad[1], f.pad[0], covered_h - f.h - f.pad[0]};
}

Outputs MaxPool2d(const std::string& op, const ops::OpArgs& args,
                  const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Pool2dForm f, ReadPool2d(op, args, /*is_avg=*/false));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"data", {f.n, f.c, f.h, f.w}}}));
  const at::Tensor data = at::constant_pad_nd(ToTorch(inputs[0]), WindowPadding(f),
                                              -std::numeric_limits<double>::infinity());
  const at::Tensor out = at::max_pool2d(data, {f.kh, f.kw}, f.stride);
  TESSEL_CHECK(out.sizes().vec() == (std::vector<int64_t>{f.n, f.c, f.oh, f.ow}));
  return std::vector<NDArray>{FromTorch(out)};
}

// Window sums of x laid out as WindowPadding describes (zeros outside x).
at::Tensor WindowSums(const at::Tensor& x, const Pool2dForm& f, const std::vector<int64_t>& pad) {
  return at::avg_pool2d(at::constant_pad_nd(x, pad, 0), {f.kh, f.kw}, f.stride, {0, 0},
                        /*ceil_mode=*/false, /*count_include_pad=*/true, /*divisor_override=*/1);
}

Outputs AvgPool2d(const std::string& op, const ops::OpArgs& args,
                  const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Pool2dForm f, ReadPool2d(op, args, /*is_avg=*/true));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"data", {f.n, f.c, f.h, f.w}}}));
  const std::vector<int64_t> pad = WindowPadding(f);
  const at::Tensor sums = WindowSums(ToTorch(inputs[0]), f, pad);
  // Each window's element count: the window sums of a mask of the elements that count, either
  // the input alone or the input with its padding (not what lies past the padding).
  at::Tensor counts;
  if (f.count_include_pad) {
    const at::Tensor padded =
        at::ones({1, 1, f.h + f.pad[0] + f.pad[2], f.w + f.pad[1] + f.pad[3]});
    counts = WindowSums(padded, f, {0, pad[1] - f.pad[3], 0, pad[3] - f.pad[2]});
  } else {
    counts = WindowSums(at::ones({1, 1, f.h, f.w}), f, pad);
  }
  const at::Tensor out = sums / counts;
  TESSEL_CHECK(out.sizes().vec() == (std::vector<int64_t>{f.n, f.c, f.oh, f.ow}));
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs GlobalPool2d(const std::string& op, const ops::OpArgs& args,
                     const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t c, reader.Int("c"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t w, reader.Int("w"));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"data", {n, c, h, w}}}));
  const at::Tensor x = ToTorch(inputs[0]);
  const at::Tensor out = op == "global_max_pool2d" ? at::amax(x, {2, 3}, /*keepdim=*/true)
                                                   : at::mean(x, {2, 3}, /*keepdim=*/true);
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs BatchNorm(const std::string& op, const ops::OpArgs& args,
                  const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t c, reader.Int("c"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t w, reader.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(const double epsilon, reader.FloatOr("epsilon", 1e-5));
  if (epsilon < 0) return reader.Error("argument 'epsilon' must not be negative");
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs,
      {{"data", {n, c, h, w}}, {"gamma", {c}}, {"beta", {c}}, {"mean", {c}}, {"var", {c}}}));
  const at::Tensor out = at::batch_norm(ToTorch(inputs[0]), ToTorch(inputs[1]), ToTorch(inputs[2]),
                                        ToTorch(inputs[3]), ToTorch(inputs[4]),
                                        /*training=*/false, /*momentum=*/0.0, epsilon,
                                        /*cudnn_enabled=*/false);
  return std::vector<NDArray>{FromTorch(out)};
}

// The operators of one input (compiler/ops/nn/unary.h) as torch computes them, independently of
// the table's element functions; the attribute defaults are OPERATORS.md's.
absl::StatusOr<at::Tensor> TorchUnary(const std::string& op, const ops::ArgReader& r,
                                      const at::Tensor& x) {
  if (op == "relu") return at::relu(x);
  if (op == "sigmoid") return at::sigmoid(x);
  if (op == "tanh") return at::tanh(x);
  if (op == "exp") return at::exp(x);
  if (op == "log") return at::log(x);
  if (op == "sqrt") return at::sqrt(x);
  if (op == "reciprocal") return at::reciprocal(x);
  if (op == "abs") return at::abs(x);
  if (op == "negative") return at::neg(x);
  if (op == "floor") return at::floor(x);
  if (op == "ceil") return at::ceil(x);
  if (op == "erf") return at::erf(x);
  if (op == "softplus") return at::softplus(x, 1, 20);
  if (op == "softsign") return x / (1 + at::abs(x));
  if (op == "hard_swish") return at::hardswish(x);
  if (op == "leaky_relu") {
    TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 0.01));
    return at::leaky_relu(x, alpha);
  }
  if (op == "clip") {
    TESSEL_ASSIGN_OR_RETURN(const double lo, r.Float("min"));
    TESSEL_ASSIGN_OR_RETURN(const double hi, r.Float("max"));
    if (lo > hi) return r.Error("argument 'min' must not exceed argument 'max'");
    return at::clamp(x, lo, hi);
  }
  if (op == "elu") {
    TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.0));
    return at::elu(x, alpha);
  }
  if (op == "selu") {
    TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.6732632423543772));
    TESSEL_ASSIGN_OR_RETURN(const double gamma, r.FloatOr("gamma", 1.0507009873554805));
    return at::elu(x, alpha, gamma);
  }
  if (op == "hard_sigmoid") {
    TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 0.2));
    TESSEL_ASSIGN_OR_RETURN(const double beta, r.FloatOr("beta", 0.5));
    return at::clamp(x * alpha + beta, 0, 1);
  }
  if (op == "gelu") {
    TESSEL_ASSIGN_OR_RETURN(const std::string approximate, r.StringOr("approximate", "none"));
    if (approximate != "none" && approximate != "tanh") {
      return r.Error("argument 'approximate' must be \"none\" or \"tanh\", got \"" + approximate +
                     "\"");
    }
    return at::gelu(x, approximate);
  }
  if (op == "thresholded_relu") {
    TESSEL_ASSIGN_OR_RETURN(const double alpha, r.FloatOr("alpha", 1.0));
    return at::threshold(x, alpha, 0);
  }
  return absl::UnimplementedError(absl::StrCat("no libtorch reference for operator '", op, "'"));
}

// The operators of one input: x of `shape`, elementwise.
Outputs Unary(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor out, TorchUnary(op, reader, ToTorch(inputs[0])));
  return std::vector<NDArray>{FromTorch(out)};
}

// lrn: ONNX's window (floor((size - 1) / 2) channels before, the rest after) as a channel
// padding and a 3-D average pool of the squares, as torch's local_response_norm builds it.
Outputs Lrn(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const ops::nn::LrnAttrs a,
                          ops::nn::ReadLrnAttrs(ops::ArgReader(op, args)));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", {a.n, a.c, a.h, a.w}}}));
  const at::Tensor x = ToTorch(inputs[0]);
  const int64_t before = (a.size - 1) / 2, after = a.size - 1 - before;
  at::Tensor squares = (x * x).unsqueeze(1);  // N 1 C H W
  squares = at::constant_pad_nd(squares, {0, 0, 0, 0, before, after});
  const at::Tensor sums =
      at::avg_pool3d(squares, {a.size, 1, 1}, {1, 1, 1}).squeeze(1) * static_cast<double>(a.size);
  const at::Tensor out =
      x / at::pow(sums * (a.alpha / static_cast<double>(a.size)) + a.bias, a.beta);
  return std::vector<NDArray>{FromTorch(out)};
}

// The reductions of compiler/ops/nn/reduce.h over any axes, as torch computes them.
Outputs Reduce(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return reader.Error("argument 'shape' must have at least one dimension");
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> axes, reader.Ints("axes", -1, -rank));
  for (const int64_t axis : axes) {
    if (axis >= rank)
      return reader.Error(absl::StrCat("argument 'axes': ", axis, " is not below the rank ", rank));
  }
  TESSEL_ASSIGN_OR_RETURN(const bool keepdims, reader.BoolOr("keepdims", true));
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  const at::Tensor x = ToTorch(inputs[0]);
  const at::IntArrayRef dims(axes);
  at::Tensor out;
  if (op == "reduce_sum") {
    out = at::sum(x, dims, keepdims);
  } else if (op == "reduce_mean") {
    out = at::mean(x, dims, keepdims);
  } else if (op == "reduce_max") {
    out = at::amax(x, dims, keepdims);
  } else if (op == "reduce_min") {
    out = at::amin(x, dims, keepdims);
  } else if (op == "reduce_prod") {
    // torch's prod takes one dimension at a time: the highest first, so the others keep their
    // positions even without keepdims.
    std::vector<int64_t> sorted = axes;
    for (int64_t& a : sorted) a = a < 0 ? a + rank : a;
    std::sort(sorted.rbegin(), sorted.rend());
    out = x;
    for (const int64_t a : sorted) out = at::prod(out, a, keepdims);
  } else if (op == "reduce_l1") {
    out = at::sum(at::abs(x), dims, keepdims);
  } else if (op == "reduce_l2") {
    out = at::sqrt(at::sum(x * x, dims, keepdims));
  } else if (op == "reduce_sum_square") {
    out = at::sum(x * x, dims, keepdims);
  } else if (op == "reduce_log_sum") {
    out = at::log(at::sum(x, dims, keepdims));
  } else {
    TESSEL_CHECK(op == "reduce_log_sum_exp") << op;
    out = at::logsumexp(x, dims, keepdims);
  }
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs Softmax(const std::string& op, const ops::OpArgs& args,
                const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Ints("shape", -1));
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return reader.Error("argument 'shape' must have at least one dimension");
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis, reader.IntOr("axis", -1, -rank));
  if (axis >= rank) {
    return reader.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  }
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, {{"x", shape}}));
  const at::Tensor x = ToTorch(inputs[0]);
  const at::Tensor out = op == "softmax" ? at::softmax(x, axis) : at::log_softmax(x, axis);
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs LayerNorm(const std::string& op, const ops::OpArgs& args,
                  const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const ops::nn::LayerNormAttrs a,
                          ops::nn::ReadLayerNormAttrs(ops::ArgReader(op, args)));
  const std::vector<int64_t> normalized = a.normalized_shape();
  TESSEL_RETURN_IF_ERROR(
      CheckInputs(op, inputs, {{"x", a.shape}, {"gamma", normalized}, {"beta", normalized}}));
  const at::Tensor out = at::layer_norm(ToTorch(inputs[0]), normalized, ToTorch(inputs[1]),
                                        ToTorch(inputs[2]), a.epsilon);
  return std::vector<NDArray>{FromTorch(out)};
}

}  // namespace

std::vector<ReferenceEntry> NnReferences() {
  std::vector<ReferenceEntry> entries = {{"max_pool2d", MaxPool2d},
                                         {"avg_pool2d", AvgPool2d},
                                         {"global_avg_pool2d", GlobalPool2d},
                                         {"global_max_pool2d", GlobalPool2d},
                                         {"batch_norm", BatchNorm},
                                         {"layer_norm", LayerNorm},
                                         {"lrn", Lrn},
                                         {"softmax", Softmax},
                                         {"log_softmax", Softmax}};
  for (const ops::nn::UnaryOp& op : ops::nn::UnaryOps()) entries.push_back({op.name, Unary});
  for (const ops::nn::ReduceOp& op : ops::nn::ReduceOps()) entries.push_back({op.name, Reduce});
  return entries;
}

}  // namespace tessel::baselines::internal
