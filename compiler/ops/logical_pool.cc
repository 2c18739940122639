// Logical signatures of pooling over NCHW data: max_pool2d, avg_pool2d, global_max_pool2d and
// global_avg_pool2d.
#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/pooling.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

// The data's extents, the keys every pooling reads.
absl::StatusOr<std::vector<int64_t>> ReadNchw(const ArgReader& r) {
  std::vector<int64_t> shape;
  for (const char* key : {"n", "c", "h", "w"}) {
    TESSEL_ASSIGN_OR_RETURN(int64_t v, r.Extent(key));
    shape.push_back(v);
  }
  return shape;
}

absl::StatusOr<LogicalSignature> Pool(const std::string& op, const OpArgs& args,
                                      nn::PoolKind kind) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadNchw(r));
  nn::Pool2DAttrs attrs;
  attrs.kind = kind;
  TESSEL_ASSIGN_OR_RETURN(attrs.kernel[0], r.Extent("kh"));
  TESSEL_ASSIGN_OR_RETURN(attrs.kernel[1], r.Extent("kw"));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> stride, r.IntsOr("stride", 2, {1, 1}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> pad, r.IntsOr("pad", 4, {0, 0, 0, 0}, 0));
  TESSEL_ASSIGN_OR_RETURN(attrs.ceil_mode, r.BoolOr("ceil_mode", false));
  if (kind == nn::PoolKind::kAvg) {
    TESSEL_ASSIGN_OR_RETURN(attrs.count_include_pad, r.BoolOr("count_include_pad", false));
  }
  attrs.stride = {stride[0], stride[1]};
  attrs.pad = {pad[0], pad[1], pad[2], pad[3]};
  const int64_t kh = attrs.kernel[0], kw = attrs.kernel[1];
  // As torch: every window must hold an input element.
  if (pad[0] >= kh || pad[2] >= kh || pad[1] >= kw || pad[3] >= kw) {
    return r.Error("argument 'pad' entries must be smaller than the kernel ('kh', 'kw')");
  }
  if (shape[2] + pad[0] + pad[2] < kh) {
    return r.Error("argument 'kh' exceeds the padded input ('h' plus 'pad')");
  }
  if (shape[3] + pad[1] + pad[3] < kw) {
    return r.Error("argument 'kw' exceeds the padded input ('w' plus 'pad')");
  }
  te::Tensor data = Placeholder(shape, "data");
  absl::StatusOr<te::Tensor> out = nn::Pool2D(data, attrs);
  if (!out.ok()) return r.Error(std::string(out.status().message()));
  return LogicalSignature{{SpecOf(data, "data")}, {SpecOf(*out, "out")}};
}

absl::StatusOr<LogicalSignature> GlobalPool(const std::string& op, const OpArgs& args,
                                            nn::PoolKind kind) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadNchw(r));
  te::Tensor data = Placeholder(shape, "data");
  absl::StatusOr<te::Tensor> out = nn::GlobalPool2D(data, kind);
  if (!out.ok()) return r.Error(std::string(out.status().message()));
  return LogicalSignature{{SpecOf(data, "data")}, {SpecOf(*out, "out")}};
}

// The signature function of a pooling of `kind`.
SignatureFn Of(absl::StatusOr<LogicalSignature> (*pool)(const std::string&, const OpArgs&,
                                                        nn::PoolKind),
               nn::PoolKind kind) {
  return [pool, kind](const std::string& op, const OpArgs& args) { return pool(op, args, kind); };
}

}  // namespace

void AddPoolOps(SignatureTable& table) {
  table["max_pool2d"] = Of(Pool, nn::PoolKind::kMax);
  table["avg_pool2d"] = Of(Pool, nn::PoolKind::kAvg);
  table["global_max_pool2d"] = Of(GlobalPool, nn::PoolKind::kMax);
  table["global_avg_pool2d"] = Of(GlobalPool, nn::PoolKind::kAvg);
}

}  // namespace tessel::ops::logical
