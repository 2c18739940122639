#include "compiler/ops/mali/spatial_pack.h"

#include "compiler/ir/op.h"
#include "compiler/ops/mali/work_group.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::mali {

using nn::Dim;

int64_t WindowFloats(const nn::Conv2dAttrs& a, int64_t vh, int64_t vw) {
  return nn::WindowExtent(vh, a.stride[0], a.kh, a.dilation[0]) *
         nn::WindowExtent(vw, a.stride[1], a.kw, a.dilation[1]);
}

ir::Expr PaddedData(const te::Tensor& data, const nn::Conv2dAttrs& a, const ir::Expr& n,
                    const ir::Expr& c, const ir::Expr& y, const ir::Expr& x) {
  const ir::Expr iy = y - Dim(a.pad[0]), ix = x - Dim(a.pad[1]);
  const ir::Expr inside = iy >= 0 && iy < Dim(a.h) && ix >= 0 && ix < Dim(a.w);
  return ir::if_then_else(inside, data(n, c, iy, ix), ir::FloatImm(ir::kFloat32, 0.0));
}

te::Tensor PackWindows(const te::Tensor& data, const nn::Conv2dAttrs& a, int64_t vh, int64_t vw,
                       const std::string& name) {
  const int64_t wh = nn::WindowExtent(vh, a.stride[0], a.kh, a.dilation[0]);
  const int64_t ww = nn::WindowExtent(vw, a.stride[1], a.kw, a.dilation[1]);
  return te::compute(
      nn::ShapeExprs({a.n, a.ic, CeilDiv(a.oh(), vh), CeilDiv(a.ow(), vw), wh, ww}),
      [&](const std::vector<ir::Var>& v) {
        return PaddedData(data, a, v[0], v[1], v[2] * Dim(vh * a.stride[0]) + v[4],
                          v[3] * Dim(vw * a.stride[1]) + v[5]);
      },
      name);
}

absl::StatusOr<WorkGroupLoops> BindOutputTiles(schedule::Stage stored, int64_t vc, int64_t vh,
                                               int64_t vw, const std::array<int64_t, 3>& wg) {
  const std::vector<ir::IterVar> o = stored->leaf_iter_vars;
  TESSEL_ASSIGN_OR_RETURN(auto c, stored.split(o[1], Dim(vc)));
  TESSEL_ASSIGN_OR_RETURN(auto y, stored.split(o[2], Dim(vh)));
  TESSEL_ASSIGN_OR_RETURN(auto x, stored.split(o[3], Dim(vw)));
  TESSEL_RETURN_IF_ERROR(
      stored.reorder({o[0], c.outer, y.outer, x.outer, y.inner, x.inner, c.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar nc, stored.fuse(o[0], c.outer));
  TESSEL_ASSIGN_OR_RETURN(WorkGroupLoops loops,
                          BindWorkGroups(stored, {nc, y.outer, x.outer}, {wg[0], wg[1], wg[2]}));
  for (const ir::IterVar& inner : {y.inner, x.inner, c.inner}) {
    TESSEL_RETURN_IF_ERROR(stored.unroll(inner));
  }
  return loops;
}

}  // namespace tessel::ops::mali
