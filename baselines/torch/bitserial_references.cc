// bitserial_conv2d and bitserial_dense. Torch has no bit-serial operators; their sums of small
// integer products are computed with float64 convolution and matrix products, which are exact for
// these values (each product < 2^16, far fewer than 2^37 terms), and rounded to int32.
#include <ATen/ATen.h>
#include <absl/strings/str_cat.h>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

using runtime::NDArray;

struct BitForm {
  int64_t activation_bits = 2, weight_bits = 1;
  bool unipolar = true;
};

absl::StatusOr<BitForm> ReadBits(const std::string& op, const ops::OpArgs& args) {
  ops::ArgReader reader(op, args);
  BitForm f;
  TESSEL_ASSIGN_OR_RETURN(f.activation_bits, reader.IntOr("activation_bits", 2));
  TESSEL_ASSIGN_OR_RETURN(f.weight_bits, reader.IntOr("weight_bits", 1));
  TESSEL_ASSIGN_OR_RETURN(f.unipolar, reader.BoolOr("unipolar", true));
  if (f.activation_bits > 8) return reader.Error("argument 'activation_bits' must be at most 8");
  if (f.weight_bits > 8) return reader.Error("argument 'weight_bits' must be at most 8");
  if (!f.unipolar && f.weight_bits != 1) {
    return reader.Error("argument 'weight_bits' must be 1 when 'unipolar' is false");
  }
  return f;
}

// x's elements as float64 after checking they fit in `bits` bits.
absl::StatusOr<at::Tensor> Bits(const std::string& op, const std::vector<NDArray>& inputs,
                                int index, const char* name, const char* key, int64_t bits) {
  const at::Tensor x = ToTorch(inputs[index]);
  if (x.numel() > 0) {
    const int64_t largest = at::max(x).item<int64_t>();
    if (largest >= (int64_t{1} << bits)) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": input ", index, " (", name, ") holds ",
                                                     largest,
                                                     ", which needs more "
                                                     "than '",
                                                     key, "' = ", bits, " bits"));
    }
  }
  return x.to(at::kDouble);
}

// The weights as the values they stand for: themselves (unipolar) or 2 * w - 1 (bipolar).
absl::StatusOr<at::Tensor> Weights(const std::string& op, const std::vector<NDArray>& inputs,
                                   const BitForm& bits) {
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor w,
                          Bits(op, inputs, 1, "weight", "weight_bits", bits.weight_bits));
  return bits.unipolar ? w : w * 2 - 1;
}

NDArray ToInt32(const at::Tensor& exact) { return FromTorch(at::round(exact).to(at::kInt)); }

Outputs BitserialConv2d(const std::string& op, const ops::OpArgs& args,
                        const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dForm f, ReadConv2d(op, args, /*groups_and_dilation=*/false));
  TESSEL_ASSIGN_OR_RETURN(const BitForm bits, ReadBits(op, args));
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs,
      {{"data", {f.n, f.ic, f.h, f.w}, kUInt8}, {"weight", {f.oc, f.ic, f.kh, f.kw}, kUInt8}}));
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor data,
                          Bits(op, inputs, 0, "data", "activation_bits", bits.activation_bits));
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor weight, Weights(op, inputs, bits));
  const at::Tensor padded = at::constant_pad_nd(data, {f.pad[1], f.pad[3], f.pad[0], f.pad[2]}, 0);
  const at::Tensor out = at::conv2d(padded, weight, {}, f.stride);
  TESSEL_CHECK(out.sizes().vec() == (std::vector<int64_t>{f.n, f.oc, f.oh, f.ow}));
  return std::vector<NDArray>{ToInt32(out)};
}

Outputs BitserialDense(const std::string& op, const ops::OpArgs& args,
                       const std::vector<NDArray>& inputs) {
  ops::ArgReader reader(op, args);
  TESSEL_ASSIGN_OR_RETURN(const int64_t m, reader.Int("m"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t k, reader.Int("k"));
  TESSEL_ASSIGN_OR_RETURN(const BitForm bits, ReadBits(op, args));
  TESSEL_RETURN_IF_ERROR(
      CheckInputs(op, inputs, {{"data", {m, k}, kUInt8}, {"weight", {n, k}, kUInt8}}));
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor data,
                          Bits(op, inputs, 0, "data", "activation_bits", bits.activation_bits));
  TESSEL_ASSIGN_OR_RETURN(const at::Tensor weight, Weights(op, inputs, bits));
  return std::vector<NDArray>{ToInt32(at::mm(data, weight.t()))};
}

}  // namespace

std::vector<ReferenceEntry> BitserialReferences() {
  return {{"bitserial_conv2d", BitserialConv2d}, {"bitserial_dense", BitserialDense}};
}

}  // namespace tessel::baselines::internal
