#include "compiler/ops/nn/pooling.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;
using ir::Var;

Expr I32(int64_t v) { return ir::IntImm(ir::kInt32, v); }

absl::Status AttrError(const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat("pool2d: ", message));
}

}  // namespace

absl::StatusOr<int64_t> PoolOutputExtent(int64_t in, int64_t kernel, int64_t stride,
                                         int64_t pad_before, int64_t pad_after, bool ceil_mode) {
  const int64_t span = in + pad_before + pad_after - kernel;
  if (span < 0) {
    return AttrError(absl::StrCat("kernel ", kernel, " is larger than the padded input ",
                                  in + pad_before + pad_after));
  }
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

absl::StatusOr<PoolGeometry> PoolGeometryOf(const te::Tensor& data, const Pool2DAttrs& attrs) {
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(data, "pool2d");
  if (!shape.ok()) return shape.status();
  if (shape->size() != 4) {
    return AttrError(absl::StrCat("data has rank ", shape->size(), ", not 4 (NCHW)"));
  }
  for (int i = 0; i < 2; ++i) {
    if (attrs.kernel[i] < 1) return AttrError(absl::StrCat("kernel ", attrs.kernel[i], " < 1"));
    if (attrs.stride[i] < 1) return AttrError(absl::StrCat("stride ", attrs.stride[i], " < 1"));
  }
  for (int64_t p : attrs.pad) {
    if (p < 0) return AttrError(absl::StrCat("pad ", p, " < 0"));
  }
  PoolGeometry g;
  g.n = (*shape)[0];
  g.c = (*shape)[1];
  g.h = (*shape)[2];
  g.w = (*shape)[3];
  absl::StatusOr<int64_t> oh = PoolOutputExtent(g.h, attrs.kernel[0], attrs.stride[0], attrs.pad[0],
                                                attrs.pad[2], attrs.ceil_mode);
  if (!oh.ok()) return oh.status();
  absl::StatusOr<int64_t> ow = PoolOutputExtent(g.w, attrs.kernel[1], attrs.stride[1], attrs.pad[1],
                                                attrs.pad[3], attrs.ceil_mode);
  if (!ow.ok()) return ow.status();
  g.oh = *oh;
  g.ow = *ow;
  // The windows cover rows [-pad_top, (oh - 1) * stride + kh - pad_top), likewise columns.
  g.ph = std::max(g.h + attrs.pad[0], (g.oh - 1) * attrs.stride[0] + attrs.kernel[0]);
  g.pw = std::max(g.w + attrs.pad[1], (g.ow - 1) * attrs.stride[1] + attrs.kernel[1]);
  return g;
}

Expr PaddedElement(const te::Tensor& data, const PoolGeometry& g, const Pool2DAttrs& attrs,
                   const Expr& i, const Expr& j, const Expr& y, const Expr& x) {
  const Expr identity =
      attrs.kind == PoolKind::kMax ? ir::MinValue(data.dtype()) : ir::MakeZero(data.dtype());
  Expr iy = y - I32(attrs.pad[0]), ix = x - I32(attrs.pad[1]);
  Expr inside = iy >= 0 && iy < I32(g.h) && ix >= 0 && ix < I32(g.w);
  Expr cy = ir::min(ir::max(iy, 0), I32(g.h - 1));
  Expr cx = ir::min(ir::max(ix, 0), I32(g.w - 1));
  return ir::select(inside, data(i, j, cy, cx), identity);
}

Expr AvgPoolScale(const PoolGeometry& g, const Pool2DAttrs& attrs, const Expr& oy, const Expr& ox,
                  ir::DataType dtype) {
  // The window clipped to the input, or (count_include_pad) to the padded input
  // [-pad_before, in + pad_after).
  auto count = [&](const Expr& o, int axis, int64_t in) -> Expr {
    const int64_t s = attrs.stride[axis], k = attrs.kernel[axis];
    const int64_t before = attrs.pad[axis], after = attrs.pad[axis + 2];
    Expr start = o * I32(s) - I32(before);
    if (attrs.count_include_pad) return ir::min(start + I32(k), I32(in + after)) - start;
    return ir::max(ir::min(start + I32(k), I32(in)) - ir::max(start, 0), 1);
  };
  return ir::MakeConst(dtype, 1.0) / ir::cast(dtype, count(oy, 0, g.h) * count(ox, 1, g.w));
}

absl::StatusOr<te::Tensor> Pool2D(const te::Tensor& data, const Pool2DAttrs& attrs) {
  absl::StatusOr<PoolGeometry> geometry = PoolGeometryOf(data, attrs);
  if (!geometry.ok()) return geometry.status();
  const PoolGeometry& g = *geometry;
  te::Tensor src = data;
  if (g.needs_pad(attrs)) {
    src = te::compute(
        ShapeExprs({g.n, g.c, g.ph, g.pw}),
        [&](Var i, Var j, Var y, Var x) { return PaddedElement(data, g, attrs, i, j, y, x); },
        "pad");
  }
  ir::IterVar rh = te::reduce_axis({0, I32(attrs.kernel[0])}, "rh");
  ir::IterVar rw = te::reduce_axis({0, I32(attrs.kernel[1])}, "rw");
  auto window = [&](Var i, Var j, Var y, Var x) {
    return src(i, j, y * I32(attrs.stride[0]) + rh, x * I32(attrs.stride[1]) + rw);
  };
  const std::vector<Expr> out_shape = ShapeExprs({g.n, g.c, g.oh, g.ow});
  if (attrs.kind == PoolKind::kMax) {
    return te::compute(
        out_shape,
        [&](Var i, Var j, Var y, Var x) {
          return te::max(window(i, j, y, x), {rh, rw});
        },
        "max_pool2d");
  }
  // Each element is scaled by the reciprocal of its window's count as it is summed, so that
  // average pooling is one reduction stage like max.
  return te::compute(
      out_shape,
      [&](Var i, Var j, Var y, Var x) {
        return te::sum(window(i, j, y, x) * AvgPoolScale(g, attrs, y, x, data.dtype()), {rh, rw});
      },
      "avg_pool2d");
}

absl::StatusOr<te::Tensor> GlobalPool2D(const te::Tensor& data, PoolKind kind) {
  absl::StatusOr<std::vector<int64_t>> shape = ConstShape(data, "global_pool2d");
  if (!shape.ok()) return shape.status();
  if (shape->size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("global_pool2d: data has rank ", shape->size(), ", not 4 (NCHW)"));
  }
  const int64_t n = (*shape)[0], c = (*shape)[1], h = (*shape)[2], w = (*shape)[3];
  ir::IterVar rh = te::reduce_axis({0, I32(h)}, "rh");
  ir::IterVar rw = te::reduce_axis({0, I32(w)}, "rw");
  const std::vector<Expr> out_shape = ShapeExprs({n, c, 1, 1});
  if (kind == PoolKind::kMax) {
    return te::compute(
        out_shape,
        [&](Var i, Var j, Var, Var) {
          return te::max(data(i, j, rh, rw), {rh, rw});
        },
        "global_max_pool2d");
  }
  const Expr scale = ir::FloatImm(data.dtype(), 1.0 / static_cast<double>(h * w));
  return te::compute(
      out_shape,
      [&](Var i, Var j, Var, Var) {
        return te::sum(data(i, j, rh, rw) * scale, {rh, rw});
      },
      "global_avg_pool2d");
}

}  // namespace tessel::ops::nn
