#include "compiler/ops/nn/pool_args.h"

#include <algorithm>
#include <vector>

#include "compiler/support/status_macros.h"

namespace tessel::ops::nn {

absl::StatusOr<Pool2DProblem> ReadPool2D(const std::string& name, const OpArgs& args,
                                         PoolKind kind) {
  ArgReader reader(name, args);
  Pool2DProblem p;
  p.attrs.kind = kind;
  TESSEL_ASSIGN_OR_RETURN(p.n, reader.Extent("n"));
  TESSEL_ASSIGN_OR_RETURN(p.c, reader.Extent("c"));
  TESSEL_ASSIGN_OR_RETURN(p.h, reader.Extent("h"));
  TESSEL_ASSIGN_OR_RETURN(p.w, reader.Extent("w"));
  TESSEL_ASSIGN_OR_RETURN(p.attrs.kernel[0], reader.Extent("kh"));
  TESSEL_ASSIGN_OR_RETURN(p.attrs.kernel[1], reader.Extent("kw"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> stride, reader.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> pad, reader.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  TESSEL_ASSIGN_OR_RETURN(p.attrs.ceil_mode, reader.BoolOr("ceil_mode", false));
  if (kind == PoolKind::kAvg) {
    TESSEL_ASSIGN_OR_RETURN(p.attrs.count_include_pad, reader.BoolOr("count_include_pad", false));
  }
  std::copy(stride.begin(), stride.end(), p.attrs.stride.begin());
  std::copy(pad.begin(), pad.end(), p.attrs.pad.begin());
  const int64_t kh = p.attrs.kernel[0], kw = p.attrs.kernel[1];
  // As torch: every window must hold an input element.
  if (pad[0] >= kh || pad[2] >= kh || pad[1] >= kw || pad[3] >= kw) {
    return reader.Error("argument 'pad' entries must be smaller than the kernel ('kh', 'kw')");
  }
  if (p.h + pad[0] + pad[2] < kh) {
    return reader.Error("argument 'kh' exceeds the padded input ('h' plus 'pad')");
  }
  if (p.w + pad[1] + pad[3] < kw) {
    return reader.Error("argument 'kw' exceeds the padded input ('w' plus 'pad')");
  }
  TESSEL_ASSIGN_OR_RETURN(
      p.oh, PoolOutputExtent(p.h, kh, stride[0], pad[0], pad[2], p.attrs.ceil_mode));
  TESSEL_ASSIGN_OR_RETURN(
      p.ow, PoolOutputExtent(p.w, kw, stride[1], pad[1], pad[3], p.attrs.ceil_mode));
  return p;
}

}  // namespace tessel::ops::nn
