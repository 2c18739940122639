// conv2d_int8 and dense_int8: int8 data and weights, the int32 sums' low 8 bits, or with `shift`
// the sums plus an int32 bias requantized (OPERATORS.md). Torch has no such int8 convolution or
// product; the sums are computed with float64 convolution or matrix product, exact for these values
// (each product at most 2^14, fewer than 2^39 terms), then wrapped or requantized here. quantize
// and dequantize (nn/quantize.h) likewise.
#include <ATen/ATen.h>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/quantize.h"
#include "compiler/ops/nn/requantize.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

constexpr DLDataType kInt8{kDLInt, 8, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

// The int64 sums as int8: with `requantize`, (sums + bias) >> shift clipped (bias broadcast
// against sums); without it, their low 8 bits.
Outputs Narrow(const at::Tensor& sums, const at::Tensor& bias,
               const std::optional<ops::nn::Requantize>& requantize) {
  if (requantize) {
    // An arithmetic shift right is a division rounding toward minus infinity.
    const at::Tensor shifted = at::floor_divide(sums + bias, int64_t{1} << requantize->shift);
    const at::Tensor clipped = at::clamp(shifted, requantize->relu ? 0 : -127, 127);
    return std::vector<runtime::NDArray>{FromTorch(clipped.to(at::kChar))};
  }
  // The low 8 bits as a two's complement int8: ((s & 255) ^ 128) - 128.
  const at::Tensor low = at::bitwise_xor(at::bitwise_and(sums, 255), 128) - 128;
  return std::vector<runtime::NDArray>{FromTorch(low.to(at::kChar))};
}

Outputs Conv2dInt8(const std::string& op, const ops::OpArgs& args,
                   const std::vector<runtime::NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dForm f, ReadConv2d(op, args, /*groups_and_dilation=*/false));
  TESSEL_ASSIGN_OR_RETURN(const std::optional<ops::nn::Requantize> requantize,
                          ops::nn::ReadRequantize(op, args));
  std::vector<InputSpec> specs = {{"data", {f.n, f.ic, f.h, f.w}, kInt8},
                                  {"weight", {f.oc, f.ic, f.kh, f.kw}, kInt8}};
  if (requantize) specs.push_back({"bias", {f.oc}, kInt32});
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, specs));
  const at::Tensor data = ToTorch(inputs[0]).to(at::kDouble);
  const at::Tensor weight = ToTorch(inputs[1]).to(at::kDouble);
  const at::Tensor padded = at::constant_pad_nd(data, {f.pad[1], f.pad[3], f.pad[0], f.pad[2]}, 0);
  const at::Tensor sums = at::round(at::conv2d(padded, weight, {}, f.stride)).to(at::kLong);
  TESSEL_CHECK(sums.sizes().vec() == (std::vector<int64_t>{f.n, f.oc, f.oh, f.ow}));
  at::Tensor bias;
  if (requantize) bias = ToTorch(inputs[2]).to(at::kLong).view({1, f.oc, 1, 1});
  return Narrow(sums, bias, requantize);
}

// dense_int8: the sums by a float64 matrix product, narrowed as conv2d_int8's.
Outputs DenseInt8(const std::string& op, const ops::OpArgs& args,
                  const std::vector<runtime::NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const ops::nn::DenseInt8Args a, ops::nn::ReadDenseInt8Args(op, args));
  const int64_t m = a.m, n = a.n, k = a.k;
  const std::optional<ops::nn::Requantize>& requantize = a.requantize;
  std::vector<InputSpec> specs = {{"data", {m, k}, kInt8}, {"weight", {n, k}, kInt8}};
  if (requantize) specs.push_back({"bias", {n}, kInt32});
  TESSEL_RETURN_IF_ERROR(CheckInputs(op, inputs, specs));
  const at::Tensor data = ToTorch(inputs[0]).to(at::kDouble);
  const at::Tensor weight = ToTorch(inputs[1]).to(at::kDouble);
  const at::Tensor sums = at::round(at::mm(data, weight.t())).to(at::kLong);
  TESSEL_CHECK(sums.sizes().vec() == (std::vector<int64_t>{m, n}));
  at::Tensor bias;
  if (requantize) bias = ToTorch(inputs[2]).to(at::kLong).view({1, n});
  return Narrow(sums, bias, requantize);
}

// quantize: the product x * factor in float32 as ours (nn::QuantizeFactor), its rounding (halves
// away from zero) and clipping in float64, where they are exact; dequantize in float64, exact,
// then rounded to float32 once, as our single float32 product is.
Outputs Quantize(const std::string& op, const ops::OpArgs& args,
                 const std::vector<runtime::NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const double scale, ops::nn::ReadQuantScale(op, args));
  if (inputs.size() != 1) return absl::InvalidArgumentError(op + ": takes one input");
  const at::Tensor x = ToTorch(inputs[0]);
  if (op == "quantize") {
    if (x.scalar_type() != at::kFloat) return absl::InvalidArgumentError(op + ": x is float32");
    const at::Tensor y = (x * ops::nn::QuantizeFactor(scale)).to(at::kDouble);
    const at::Tensor rounded = at::trunc(y + at::copysign(at::full_like(y, 0.5), y));
    return std::vector<runtime::NDArray>{FromTorch(at::clamp(rounded, -127, 127).to(at::kChar))};
  }
  if (x.scalar_type() != at::kChar) return absl::InvalidArgumentError(op + ": x is int8");
  const double s = static_cast<float>(scale);
  return std::vector<runtime::NDArray>{FromTorch((x.to(at::kDouble) * s).to(at::kFloat))};
}

}  // namespace

std::vector<ReferenceEntry> Int8References() {
  return {{"conv2d_int8", Conv2dInt8},
          {"dense_int8", DenseInt8},
          {"quantize", Quantize},
          {"dequantize", Quantize}};
}

}  // namespace tessel::baselines::internal
