#include "compiler/ops/nn/conv2d.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;
using ir::Var;

// y within [lo, hi): the padding guard.
Expr Inside(const Expr& y, int64_t lo, int64_t hi) { return y >= Dim(lo) && y < Dim(hi); }

// Whether the element (yy, xx) of conv2d_transpose's zero-inserted input (the equivalent
// convolution's input, before its padding) holds a data element: inside, on the stride's grid.
Expr OnStrideGrid(const Expr& yy, const Expr& xx, const Conv2dTransposeAttrs& a,
                  const Conv2dAttrs& conv) {
  Expr on_grid = Inside(yy, 0, conv.h) && Inside(xx, 0, conv.w);
  if (a.stride[0] > 1) on_grid = on_grid && yy % Dim(a.stride[0]) == Dim(0);
  if (a.stride[1] > 1) on_grid = on_grid && xx % Dim(a.stride[1]) == Dim(0);
  return on_grid;
}

// The keys conv2d and conv2d_transpose share: sizes, stride and padding.
template <class Attrs>
absl::Status ReadSizes(const ArgReader& r, Attrs& a) {
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(a.ic, r.Int("ic"));
  TESSEL_ASSIGN_OR_RETURN(a.h, r.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(a.w, r.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(a.oc, r.Int("oc"));
  TESSEL_ASSIGN_OR_RETURN(a.kh, r.Int("kh"));
  TESSEL_ASSIGN_OR_RETURN(a.kw, r.Int("kw"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> stride, r.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> pad, r.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  a.stride = {stride[0], stride[1]};
  a.pad = {pad[0], pad[1], pad[2], pad[3]};
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Conv2dAttrs> ReadConv2dAttrs(const std::string& what, const OpArgs& args) {
  ArgReader r(what, args);
  Conv2dAttrs a;
  TESSEL_RETURN_IF_ERROR(ReadSizes(r, a));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, r.IntsOr("dilation", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(a.groups, r.IntOr("groups", 1));
  a.dilation = {dilation[0], dilation[1]};
  if (a.ic % a.groups != 0 || a.oc % a.groups != 0) {
    return r.Error(absl::StrCat("'groups' (", a.groups, ") must divide 'ic' (", a.ic,
                                ") and 'oc' (", a.oc, ")"));
  }
  if (a.oh() < 1 || a.ow() < 1) {
    return r.Error(absl::StrCat("the kernel 'kh' x 'kw' (", a.kh, "x", a.kw, ", dilation ",
                                a.dilation[0], "x", a.dilation[1],
                                ") is larger than the padded input (", a.h + a.pad[0] + a.pad[2],
                                "x", a.w + a.pad[1] + a.pad[3], ")"));
  }
  // Index arithmetic is int32: every tensor must stay below 2^31 elements.
  const double largest = static_cast<double>(a.n) * std::max(a.ic, a.oc) *
                         std::max(a.h + a.pad[0] + a.pad[2], a.oh()) *
                         std::max(a.w + a.pad[1] + a.pad[3], a.ow());
  if (largest >= 2147483648.0) return r.Error("tensors of 2^31 elements or more are not supported");
  return a;
}

absl::StatusOr<Conv2dAttrs> ReadPlainConv2dAttrs(const std::string& what, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(Conv2dAttrs a, ReadConv2dAttrs(what, args));
  ArgReader r(what, args);
  if (a.groups != 1) return r.Error("argument 'groups' must be 1 (not supported)");
  if (a.dilation[0] != 1 || a.dilation[1] != 1) {
    return r.Error("argument 'dilation' must be [1, 1] (not supported)");
  }
  return a;
}

OpArgs Conv2dArgs(const Conv2dAttrs& a) {
  return OpArgs{{"n", a.n},
                {"ic", a.ic},
                {"h", a.h},
                {"w", a.w},
                {"oc", a.oc},
                {"kh", a.kh},
                {"kw", a.kw},
                {"stride", {a.stride[0], a.stride[1]}},
                {"pad", {a.pad[0], a.pad[1], a.pad[2], a.pad[3]}},
                {"dilation", {a.dilation[0], a.dilation[1]}},
                {"groups", a.groups}};
}

Conv2dNchw MakeConv2dNchw(const Conv2dAttrs& a) {
  Conv2dNchw c;
  const int64_t icg = a.ic / a.groups, ocg = a.oc / a.groups;
  const int64_t ph = a.h + a.pad[0] + a.pad[2], pw = a.w + a.pad[1] + a.pad[3];
  c.data = te::placeholder({Dim(a.n), Dim(a.ic), Dim(a.h), Dim(a.w)}, ir::kFloat32, "data");
  c.weight = te::placeholder({Dim(a.oc), Dim(icg), Dim(a.kh), Dim(a.kw)}, ir::kFloat32, "weight");
  c.pad = te::compute({Dim(a.n), Dim(a.ic), Dim(ph), Dim(pw)},
                      [&](Var n, Var ch, Var y, Var x) {
                        Expr value = c.data(n, ch, y - Dim(a.pad[0]), x - Dim(a.pad[1]));
                        if (a.pad[0] + a.pad[1] + a.pad[2] + a.pad[3] == 0) return value;
                        return ir::if_then_else(Inside(y, a.pad[0], a.pad[0] + a.h) &&
                                                    Inside(x, a.pad[1], a.pad[1] + a.w),
                                                value, ir::FloatImm(ir::kFloat32, 0.0));
                      },
                      "pad", {"n", "c", "y", "x"});
  ir::IterVar rc = te::reduce_axis({Dim(0), Dim(icg)}, "rc");
  ir::IterVar ry = te::reduce_axis({Dim(0), Dim(a.kh)}, "ry");
  ir::IterVar rx = te::reduce_axis({Dim(0), Dim(a.kw)}, "rx");
  c.out = te::compute(
      {Dim(a.n), Dim(a.oc), Dim(a.oh()), Dim(a.ow())},
      [&](Var n, Var o, Var y, Var x) {
        Expr in_channel = rc->var;
        if (a.groups > 1) in_channel = (o / Dim(ocg)) * Dim(icg) + rc->var;
        return te::sum(c.pad(n, in_channel, y * Dim(a.stride[0]) + ry->var * Dim(a.dilation[0]),
                             x * Dim(a.stride[1]) + rx->var * Dim(a.dilation[1])) *
                           c.weight(o, rc->var, ry->var, rx->var),
                       {rc, ry, rx});
      },
      "conv2d", {"n", "oc", "oh", "ow"});
  return c;
}

Conv2dNchwc MakeConv2dNchwcOn(const te::Tensor& padded, const Conv2dAttrs& a, int64_t icb,
                              int64_t ocb) {
  Conv2dNchwc c;
  c.pad = padded;
  c.weight =
      te::placeholder({Dim(a.oc / ocb), Dim(a.ic / icb), Dim(a.kh), Dim(a.kw), Dim(icb), Dim(ocb)},
                      ir::kFloat32, "weight");
  c.icc = te::reduce_axis({Dim(0), Dim(a.ic / icb)}, "icc");
  c.kh = te::reduce_axis({Dim(0), Dim(a.kh)}, "kh");
  c.kw = te::reduce_axis({Dim(0), Dim(a.kw)}, "kw");
  c.icb = te::reduce_axis({Dim(0), Dim(icb)}, "icb");
  c.out = te::compute(
      {Dim(a.n), Dim(a.oc / ocb), Dim(a.oh()), Dim(a.ow()), Dim(ocb)},
      [&](Var n, Var occ, Var y, Var x, Var ob) {
        return te::sum(c.pad(n, c.icc->var, y * Dim(a.stride[0]) + c.kh->var * Dim(a.dilation[0]),
                             x * Dim(a.stride[1]) + c.kw->var * Dim(a.dilation[1]), c.icb->var) *
                           c.weight(occ, c.icc->var, c.kh->var, c.kw->var, c.icb->var, ob),
                       {c.icc, c.kh, c.kw, c.icb});
      },
      "conv2d_nchwc", {"n", "occ", "oh", "ow", "ocb"});
  return c;
}

Conv2dNchwc MakeConv2dNchwc(const Conv2dAttrs& a, int64_t icb, int64_t ocb) {
  te::Tensor data = te::placeholder({Dim(a.n), Dim(a.ic / icb), Dim(a.h), Dim(a.w), Dim(icb)},
                                    ir::kFloat32, "data");
  if (a.pad[0] + a.pad[1] + a.pad[2] + a.pad[3] == 0) {
    Conv2dNchwc c = MakeConv2dNchwcOn(data, a, icb, ocb);
    c.data = data;
    return c;
  }
  const int64_t ph = a.h + a.pad[0] + a.pad[2], pw = a.w + a.pad[1] + a.pad[3];
  te::Tensor pad = te::compute(
      {Dim(a.n), Dim(a.ic / icb), Dim(ph), Dim(pw), Dim(icb)},
      [&](Var n, Var cc, Var y, Var x, Var cb) {
        return ir::if_then_else(
            Inside(y, a.pad[0], a.pad[0] + a.h) && Inside(x, a.pad[1], a.pad[1] + a.w),
            data(n, cc, y - Dim(a.pad[0]), x - Dim(a.pad[1]), cb), ir::FloatImm(ir::kFloat32, 0.0));
      },
      "pad", {"n", "cc", "y", "x", "cb"});
  Conv2dAttrs unpadded = a;
  unpadded.h = ph;
  unpadded.w = pw;
  unpadded.pad = {0, 0, 0, 0};
  Conv2dNchwc c = MakeConv2dNchwcOn(pad, unpadded, icb, ocb);
  c.data = data;
  return c;
}

DepthwiseNchwc MakeDepthwiseNchwc(const Conv2dAttrs& a, int64_t cb) {
  DepthwiseNchwc c;
  const int64_t ph = a.h + a.pad[0] + a.pad[2], pw = a.w + a.pad[1] + a.pad[3];
  c.data = te::placeholder({Dim(a.n), Dim(a.ic / cb), Dim(a.h), Dim(a.w), Dim(cb)}, ir::kFloat32,
                           "data");
  c.weight =
      te::placeholder({Dim(a.ic / cb), Dim(a.kh), Dim(a.kw), Dim(cb)}, ir::kFloat32, "weight");
  c.pad = te::compute({Dim(a.n), Dim(a.ic / cb), Dim(ph), Dim(pw), Dim(cb)},
                      [&](Var n, Var cc, Var y, Var x, Var b) {
                        Expr value = c.data(n, cc, y - Dim(a.pad[0]), x - Dim(a.pad[1]), b);
                        if (a.pad[0] + a.pad[1] + a.pad[2] + a.pad[3] == 0) return value;
                        return ir::if_then_else(Inside(y, a.pad[0], a.pad[0] + a.h) &&
                                                    Inside(x, a.pad[1], a.pad[1] + a.w),
                                                value, ir::FloatImm(ir::kFloat32, 0.0));
                      },
                      "pad", {"n", "cc", "y", "x", "cb"});
  c.kh = te::reduce_axis({Dim(0), Dim(a.kh)}, "kh");
  c.kw = te::reduce_axis({Dim(0), Dim(a.kw)}, "kw");
  c.out = te::compute({Dim(a.n), Dim(a.ic / cb), Dim(a.oh()), Dim(a.ow()), Dim(cb)},
                      [&](Var n, Var cc, Var y, Var x, Var b) {
                        return te::sum(
                            c.pad(n, cc, y * Dim(a.stride[0]) + c.kh->var * Dim(a.dilation[0]),
                                  x * Dim(a.stride[1]) + c.kw->var * Dim(a.dilation[1]), b) *
                                c.weight(cc, c.kh->var, c.kw->var, b),
                            {c.kh, c.kw});
                      },
                      "depthwise_conv2d_nchwc", {"n", "cc", "oh", "ow", "cb"});
  return c;
}

Conv2dAttrs Conv2dTransposeAttrs::EquivalentConv() const {
  Conv2dAttrs c;
  c.n = n;
  c.ic = ic;
  c.oc = oc;
  c.kh = kh;
  c.kw = kw;
  c.h = (h - 1) * stride[0] + 1;
  c.w = (w - 1) * stride[1] + 1;
  c.pad = {kh - 1 - pad[0], kw - 1 - pad[1], kh - 1 - pad[2] + output_padding[0],
           kw - 1 - pad[3] + output_padding[1]};
  return c;
}

absl::StatusOr<Conv2dTransposeAttrs> ReadConv2dTransposeAttrs(const std::string& what,
                                                              const OpArgs& args) {
  ArgReader r(what, args);
  Conv2dTransposeAttrs a;
  TESSEL_RETURN_IF_ERROR(ReadSizes(r, a));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, r.IntsOr("output_padding", 2, {0, 0}, 0));
  a.output_padding = {out_pad[0], out_pad[1]};
  if (a.pad[0] >= a.kh || a.pad[2] >= a.kh || a.pad[1] >= a.kw || a.pad[3] >= a.kw) {
    return r.Error(
        absl::StrCat("'pad' entries must be below the kernel size (", a.kh, "x", a.kw, ")"));
  }
  if (out_pad[0] >= a.stride[0] || out_pad[1] >= a.stride[1]) {
    return r.Error("'output_padding' entries must be below the stride");
  }
  if (a.oh() < 1 || a.ow() < 1) return r.Error("the output would be empty");
  // Index arithmetic is int32; the zero-inserted, padded input is the largest tensor.
  const Conv2dAttrs conv = a.EquivalentConv();
  const double largest = static_cast<double>(a.n) * std::max(a.ic, a.oc) *
                         static_cast<double>(conv.h + conv.pad[0] + conv.pad[2]) *
                         static_cast<double>(conv.w + conv.pad[1] + conv.pad[3]);
  if (largest >= 2147483648.0) return r.Error("tensors of 2^31 elements or more are not supported");
  return a;
}

Conv2dTransposeNchw MakeConv2dTransposeNchw(const Conv2dTransposeAttrs& a) {
  Conv2dTransposeNchw c;
  const Conv2dAttrs conv = a.EquivalentConv();
  const int64_t ph = conv.h + conv.pad[0] + conv.pad[2];
  const int64_t pw = conv.w + conv.pad[1] + conv.pad[3];
  c.data = te::placeholder({Dim(a.n), Dim(a.ic), Dim(a.h), Dim(a.w)}, ir::kFloat32, "data");
  c.weight = te::placeholder({Dim(a.ic), Dim(a.oc), Dim(a.kh), Dim(a.kw)}, ir::kFloat32, "weight");
  c.dilated = te::compute({Dim(a.n), Dim(a.ic), Dim(ph), Dim(pw)},
                          [&](Var n, Var ch, Var y, Var x) {
                            Expr yy = y - Dim(conv.pad[0]);
                            Expr xx = x - Dim(conv.pad[1]);
                            return ir::if_then_else(
                                OnStrideGrid(yy, xx, a, conv),
                                c.data(n, ch, yy / Dim(a.stride[0]), xx / Dim(a.stride[1])),
                                ir::FloatImm(ir::kFloat32, 0.0));
                          },
                          "dilate_pad", {"n", "c", "y", "x"});
  ir::IterVar rc = te::reduce_axis({Dim(0), Dim(a.ic)}, "rc");
  ir::IterVar ry = te::reduce_axis({Dim(0), Dim(a.kh)}, "ry");
  ir::IterVar rx = te::reduce_axis({Dim(0), Dim(a.kw)}, "rx");
  c.out = te::compute(
      {Dim(a.n), Dim(a.oc), Dim(a.oh()), Dim(a.ow())},
      [&](Var n, Var o, Var y, Var x) {
        return te::sum(c.dilated(n, rc->var, y + ry->var, x + rx->var) *
                           c.weight(rc->var, o, Dim(a.kh - 1) - ry->var, Dim(a.kw - 1) - rx->var),
                       {rc, ry, rx});
      },
      "conv2d_transpose", {"n", "oc", "oh", "ow"});
  return c;
}

te::Tensor DilateAndPadNchwc(const te::Tensor& data, const Conv2dTransposeAttrs& a, int64_t icb) {
  const Conv2dAttrs conv = a.EquivalentConv();
  const int64_t ph = conv.h + conv.pad[0] + conv.pad[2];
  const int64_t pw = conv.w + conv.pad[1] + conv.pad[3];
  const int64_t sy = a.stride[0], sx = a.stride[1];
  return te::compute({Dim(a.n), Dim(a.ic / icb), Dim(ph), Dim(pw), Dim(icb)},
                     [&](Var n, Var cc, Var y, Var x, Var cb) {
                       Expr yy = y - Dim(conv.pad[0]);
                       Expr xx = x - Dim(conv.pad[1]);
                       return ir::if_then_else(OnStrideGrid(yy, xx, a, conv),
                                               data(n, cc, yy / Dim(sy), xx / Dim(sx), cb),
                                               ir::FloatImm(ir::kFloat32, 0.0));
                     },
                     "dilate_pad", {"n", "cc", "y", "x", "cb"});
}

int64_t WindowExtent(int64_t outputs, int64_t stride, int64_t taps, int64_t dilation) {
  return (outputs - 1) * stride + (taps - 1) * dilation + 1;
}

}  // namespace tessel::ops::nn
