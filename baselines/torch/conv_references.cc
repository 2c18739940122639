// conv2d and conv2d_transpose. Torch pads symmetrically, so the asymmetric padding of the logical
// form is applied as an explicit zero pad (conv2d) or as a crop of the unpadded result
// (conv2d_transpose).
#include <ATen/ATen.h>

#include "baselines/torch/forms.h"
#include "baselines/torch/inputs.h"
#include "baselines/torch/reference_ops.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

using runtime::NDArray;

Outputs Conv2d(const std::string& op, const ops::OpArgs& args, const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dForm f, ReadConv2d(op, args, /*groups_and_dilation=*/true));
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs,
      {{"data", {f.n, f.ic, f.h, f.w}}, {"weight", {f.oc, f.ic / f.groups, f.kh, f.kw}}}));
  // constant_pad_nd lists the last dimension first: (left, right, top, bottom).
  const at::Tensor data =
      at::constant_pad_nd(ToTorch(inputs[0]), {f.pad[1], f.pad[3], f.pad[0], f.pad[2]}, 0);
  const at::Tensor out = at::conv2d(data, ToTorch(inputs[1]), {}, f.stride, at::IntArrayRef({0, 0}),
                                    f.dilation, f.groups);
  TESSEL_CHECK(out.sizes().vec() == (std::vector<int64_t>{f.n, f.oc, f.oh, f.ow}));
  return std::vector<NDArray>{FromTorch(out)};
}

Outputs Conv2dTranspose(const std::string& op, const ops::OpArgs& args,
                        const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dTransposeForm f, ReadConv2dTranspose(op, args));
  TESSEL_RETURN_IF_ERROR(CheckInputs(
      op, inputs, {{"data", {f.n, f.ic, f.h, f.w}}, {"weight", {f.ic, f.oc, f.kh, f.kw}}}));
  // Without padding the result spans (h - 1) * stride + kh rows. Padding crops rows from both
  // ends; output_padding adds rows at the bottom (and columns at the right), which no input
  // reaches once they pass the uncropped extent, so they are zeros there.
  const at::Tensor full =
      at::conv_transpose2d(ToTorch(inputs[0]), ToTorch(inputs[1]), {}, f.stride);
  const at::Tensor out = at::constant_pad_nd(
      full, {-f.pad[1], f.output_padding[1] - f.pad[3], -f.pad[0], f.output_padding[0] - f.pad[2]},
      0);
  TESSEL_CHECK(out.sizes().vec() == (std::vector<int64_t>{f.n, f.oc, f.oh, f.ow}));
  return std::vector<NDArray>{FromTorch(out)};
}

}  // namespace

std::vector<ReferenceEntry> ConvReferences() {
  return {{"conv2d", Conv2d}, {"conv2d_transpose", Conv2dTranspose}};
}

}  // namespace tessel::baselines::internal
