// cast as an injective compute (nn/cast.h): x as one row of all its elements, each converted to
// `to` (prepare and finish reshape; free for a graph compiler). Flops: 0 (a conversion per
// element, measured in GB/s like data movement).
#include "compiler/ir/dl_type.h"
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/cast.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {

absl::StatusOr<InjectiveOp> BuildCast(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType from, nn::CastElementType(reader, "from"));
  TESSEL_ASSIGN_OR_RETURN(const ir::DataType to, nn::CastElementType(reader, "to"));
  const std::vector<int64_t> flat = {nn::NumElements(shape)};
  InjectiveOp op;
  te::Tensor x = te::placeholder(nn::ShapeExprs(flat), from, "x");
  TESSEL_ASSIGN_OR_RETURN(op.output, nn::Cast(x, to));
  op.inputs = {x};
  const nn::CastInputRange range = nn::CastRange(from, to);
  op.logical_inputs = {{"x", shape, ir::ToDLType(from), range.low, range.high}};
  op.logical_output_shape = shape;
  op.prepare = ReshapeArrays({flat});
  op.finish = ReshapeArrays({shape});
  op.max_inner_axes = 1;
  op.flops_per_element = 0;
  return op;
}

}  // namespace tessel::ops::injective
