#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <string>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// conv2d and conv2d_transpose (OPERATORS.md): attributes, the computes the x86 templates
// schedule, and conv2d_transpose on its logical layouts. Index arithmetic is int32; shapes are
// constants.
namespace tessel::ops::nn {

struct Conv2dAttrs {
  int64_t n = 1, ic = 1, h = 1, w = 1, oc = 1, kh = 1, kw = 1;
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> pad{0, 0, 0, 0};  // top, left, bottom, right
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;

  int64_t oh() const { return (h + pad[0] + pad[2] - dilation[0] * (kh - 1) - 1) / stride[0] + 1; }
  int64_t ow() const { return (w + pad[1] + pad[3] - dilation[1] * (kw - 1) - 1) / stride[1] + 1; }
  // 2 * multiply-adds.
  double flops() const { return 2.0 * n * oc * oh() * ow() * (ic / groups) * kh * kw; }
  bool depthwise() const { return groups == ic && groups == oc && groups > 1; }
};

// Input rows (or columns) that `outputs` consecutive outputs read: each over `taps` kernel taps
// at `dilation`, the outputs `stride` apart.
int64_t WindowExtent(int64_t outputs, int64_t stride, int64_t taps, int64_t dilation);

// Reads conv2d's arguments; errors (from `what`) name the key: a missing or non-positive size,
// channels not divisible by groups, or a kernel larger than the padded input.
absl::StatusOr<Conv2dAttrs> ReadConv2dAttrs(const std::string& what, const OpArgs& args);
// The same for the convolutions without groups or dilation (bit-serial, int8): groups other than
// 1 and dilation other than [1, 1] are refused, naming the key.
absl::StatusOr<Conv2dAttrs> ReadPlainConv2dAttrs(const std::string& what, const OpArgs& args);
// The arguments as OPERATORS.md writes them.
OpArgs Conv2dArgs(const Conv2dAttrs& a);

// Direct convolution on NCHW data [n, ic, h, w] and OIHW weight [oc, ic / groups, kh, kw]; any
// groups. Padding reads zero through an if_then_else in the input stage "pad" (returned so a
// schedule can place it).
struct Conv2dNchw {
  te::Tensor data, weight, pad, out;
};
Conv2dNchw MakeConv2dNchw(const Conv2dAttrs& a);

// Convolution in blocked layouts (groups = 1):
//   data   [n, ic / icb, h, w, icb]                      (NCHW{icb}c)
//   weight [oc / ocb, ic / icb, kh, kw, icb, ocb]         (OIHW{icb}i{ocb}o)
//   pad    [n, ic / icb, h + pad_t + pad_b, w + pad_l + pad_r, icb]  (pad == data without padding)
//   out    [n, oc / ocb, oh, ow, ocb]                     (NCHW{ocb}c)
// icb must divide ic and ocb divide oc.
struct Conv2dNchwc {
  te::Tensor data, weight, pad, out;
  ir::IterVar icc, kh, kw, icb;  // the reduction axes, outermost first
};
Conv2dNchwc MakeConv2dNchwc(const Conv2dAttrs& a, int64_t icb, int64_t ocb);
// The same on a given (already padded) blocked input; a.pad must be zero.
Conv2dNchwc MakeConv2dNchwcOn(const te::Tensor& padded, const Conv2dAttrs& a, int64_t icb,
                              int64_t ocb);

// Depthwise convolution (channel multiplier 1) in blocked layout:
//   data [n, c / cb, h, w, cb], weight [c / cb, kh, kw, cb], out [n, c / cb, oh, ow, cb].
struct DepthwiseNchwc {
  te::Tensor data, weight, pad, out;
  ir::IterVar kh, kw;
};
DepthwiseNchwc MakeDepthwiseNchwc(const Conv2dAttrs& a, int64_t cb);

// conv2d_transpose (OPERATORS.md): data NCHW [n, ic, h, w], weight IOHW [ic, oc, kh, kw].
struct Conv2dTransposeAttrs {
  int64_t n = 1, ic = 1, h = 1, w = 1, oc = 1, kh = 1, kw = 1;
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> pad{0, 0, 0, 0};
  std::array<int64_t, 2> output_padding{0, 0};

  int64_t oh() const { return (h - 1) * stride[0] - pad[0] - pad[2] + kh + output_padding[0]; }
  int64_t ow() const { return (w - 1) * stride[1] - pad[1] - pad[3] + kw + output_padding[1]; }
  double flops() const { return 2.0 * n * ic * oc * h * w * kh * kw; }
  // The stride-1 convolution over the zero-inserted, padded input that computes this transpose:
  // input size (h - 1) * stride + 1 + the padding below, padding kh - 1 - pad (+ output_padding at
  // the bottom/right), weight flipped and transposed to OIHW.
  Conv2dAttrs EquivalentConv() const;
};

// Reads conv2d_transpose's arguments; errors (from `what`) name the key: a missing or
// non-positive size, padding not below the kernel, output padding not below the stride, an empty
// output, or a tensor (the zero-inserted input included) of 2^31 elements or more.
absl::StatusOr<Conv2dTransposeAttrs> ReadConv2dTransposeAttrs(const std::string& what,
                                                              const OpArgs& args);

// conv2d_transpose on its logical layouts: data NCHW [n, ic, h, w], weight IOHW [ic, oc, kh, kw],
// out NCHW [n, oc, oh, ow]. The stride-1 convolution of the zero-inserted, padded input (stage
// "dilate_pad", EquivalentConv's input with its padding) with the weight flipped in both spatial
// dimensions and read as OIHW: out[n, o, y, x] = sum over (i, ry, rx) of
// dilate_pad[n, i, y + ry, x + rx] * weight[i, o, kh - 1 - ry, kw - 1 - rx].
struct Conv2dTransposeNchw {
  te::Tensor data, weight, dilated, out;
};
Conv2dTransposeNchw MakeConv2dTransposeNchw(const Conv2dTransposeAttrs& a);

// The zero-inserted, padded input of the equivalent convolution, blocked:
//   data [n, ic / icb, h, w, icb] -> [n, ic / icb, conv.h + pad_t + pad_b, ..., icb]
// where element (y, x) is data[(y - pad_t) / s] when (y - pad_t) is a non-negative multiple of s
// below h * s, else 0.
te::Tensor DilateAndPadNchwc(const te::Tensor& data, const Conv2dTransposeAttrs& a, int64_t icb);

}  // namespace tessel::ops::nn
