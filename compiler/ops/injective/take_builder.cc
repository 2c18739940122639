// take as an injective compute: a gather of float32 rows by int32 or int64 indices (nn/take.h;
// `indices_dtype`, int32 when absent). Each
// output row of `inner` elements is a contiguous copy of one data row, so only that axis may be
// fused (max_inner_axes 1). Flops: 0 (data movement).
#include <absl/strings/str_cat.h>

#include "compiler/ir/dl_type.h"
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/take.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {

absl::StatusOr<InjectiveOp> BuildTake(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> data_shape, reader.Shape("data_shape"));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices_shape, reader.Shape("indices_shape"));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, reader.IntOr("axis", 0, -rank));
  if (axis >= rank) {
    return reader.Error(
        absl::StrCat("argument 'axis' must be below the rank ", rank, " of 'data_shape'"));
  }
  if (axis < 0) axis += rank;
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType index_type, nn::TakeIndexType(reader));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> out_shape,
                          nn::TakeShape(data_shape, indices_shape, axis));

  const int64_t outer = nn::NumElements({data_shape.begin(), data_shape.begin() + axis});
  const int64_t n = data_shape[axis];
  const int64_t inner = nn::NumElements({data_shape.begin() + axis + 1, data_shape.end()});
  const int64_t m = nn::NumElements(indices_shape);
  auto view = [&](int64_t middle) {
    std::vector<int64_t> v;
    if (outer > 1) v.push_back(outer);
    v.push_back(middle);
    if (inner > 1) v.push_back(inner);
    return v;
  };
  const std::vector<int64_t> data_view = view(n), indices_view = {m};
  te::Tensor data = te::placeholder(nn::ShapeExprs(data_view), ir::kFloat32, "data");
  te::Tensor indices = te::placeholder(nn::ShapeExprs(indices_view), index_type, "indices");
  InjectiveOp op;
  op.inputs = {data, indices};
  TESSEL_ASSIGN_OR_RETURN(op.output, nn::Take(data, indices, outer > 1 ? 1 : 0));
  // Test draws cover negative and out-of-range indices, so every check exercises the clamp.
  op.logical_inputs = {{"data", data_shape},
                       {"indices", indices_shape, ir::ToDLType(index_type),
                        static_cast<double>(-n - 2), static_cast<double>(n + 2)}};
  op.logical_output_shape = out_shape;
  op.prepare = ReshapeArrays({data_view, indices_view});
  op.finish = ReshapeArrays({out_shape});
  op.max_inner_axes = 1;
  op.flops_per_element = 0;
  return op;
}

}  // namespace tessel::ops::injective
