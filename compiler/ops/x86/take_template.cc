// take.x86: a gather of float32 rows by int32 indices (compiler/ops/nn/take.h), one injective
// output scheduled by injective_schedule.h (knobs inner_axes, vec, unroll, parallel). The
// program works on views: data as [outer, n, inner] (the axes before and after the gathered one
// merged, dropped when of extent 1), the indices as one row [m], the output as [outer, m, inner]
// (prepare and finish reshape; free for a graph compiler). Each output row of `inner` elements
// is a contiguous copy of one data row, so only that axis is vectorized; with inner = 1 (a
// gather along the last axis) the inner loop runs over the indices and the loads are gathers.
// Flops: 0 (data movement).
#include <absl/strings/str_cat.h>

#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/take.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/ops/x86/injective_schedule.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {


absl::StatusOr<InjectiveOp> BuildTake(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> data_shape, reader.Shape("data_shape"));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices_shape,
                          reader.Shape("indices_shape"));
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, reader.IntOr("axis", 0, -rank));
  if (axis >= rank) {
    return reader.Error(
        absl::StrCat("argument 'axis' must be below the rank ", rank, " of 'data_shape'"));
  }
  if (axis < 0) axis += rank;
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
  te::Tensor indices = te::placeholder(nn::ShapeExprs(indices_view), ir::kInt32, "indices");
  InjectiveOp op;
  op.inputs = {data, indices};
  TESSEL_ASSIGN_OR_RETURN(op.output, nn::Take(data, indices, outer > 1 ? 1 : 0));
  // Test draws cover negative and out-of-range indices, so every check exercises the clamp.
  op.logical_inputs = {{"data", data_shape},
                       {"indices",
                        indices_shape,
                        {kDLInt, 32, 1},
                        static_cast<double>(-n - 2),
                        static_cast<double>(n + 2)}};
  op.logical_output_shape = out_shape;
  op.prepare = ReshapeArrays({data_view, indices_view});
  op.finish = ReshapeArrays({out_shape});
  op.max_inner_axes = 1;
  op.flops_per_element = 0;
  return op;
}

TESSEL_REGISTER_TEMPLATE(
    "cpu", MakeInjectiveTemplate("take.x86", "take",
                                 "gather along an axis by int32 indices (clamped), vectorized rows",
                                 BuildTake));

}  // namespace
}  // namespace tessel::ops::x86
