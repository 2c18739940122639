// conv2d_int8: int8 data and weights, the int32 sums' low 8 bits (OPERATORS.md). Torch has no
// wrapping int8 convolution; the sums are computed with float64 convolution, exact for these
// values (each product at most 2^14, fewer than 2^39 terms), and wrapped to 8 bits here.
#include <ATen/ATen.h>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

constexpr DLDataType kInt8{kDLInt, 8, 1};

Outputs Conv2dInt8(const std::string& op, const ops::OpArgs& args,
                   const std::vector<runtime::NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dForm f, ReadConv2d(op, args, /*groups_and_dilation=*/false));
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs,
      {{"data", {f.n, f.ic, f.h, f.w}, kInt8}, {"weight", {f.oc, f.ic, f.kh, f.kw}, kInt8}}));
  const at::Tensor data = ToTorch(inputs[0]).to(at::kDouble);
  const at::Tensor weight = ToTorch(inputs[1]).to(at::kDouble);
  const at::Tensor padded = at::constant_pad_nd(data, {f.pad[1], f.pad[3], f.pad[0], f.pad[2]}, 0);
  const at::Tensor sums = at::round(at::conv2d(padded, weight, {}, f.stride)).to(at::kLong);
  TESSEL_CHECK(sums.sizes().vec() == (std::vector<int64_t>{f.n, f.oc, f.oh, f.ow}));
  // The low 8 bits as a two's complement int8: ((s & 255) ^ 128) - 128.
  const at::Tensor low = at::bitwise_xor(at::bitwise_and(sums, 255), 128) - 128;
  return std::vector<runtime::NDArray>{FromTorch(low.to(at::kChar))};
}

}  // namespace

std::vector<ReferenceEntry> Int8References() { return {{"conv2d_int8", Conv2dInt8}}; }

}  // namespace tessel::baselines::internal
