// quantize and dequantize as injective computes (nn/quantize.h): x as one row of all its elements
// (prepare and finish reshape). Flops: 0 (a conversion per element, measured in GB/s like data
// movement).
#include "compiler/ir/dl_type.h"
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/quantize.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {
namespace {

// `name` names the template or operator in messages.
absl::StatusOr<InjectiveOp> Build(const std::string& name, const OpArgs& args, bool quantize) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, reader.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(const double scale, nn::ReadQuantScale(name, args));
  const std::vector<int64_t> flat = {nn::NumElements(shape)};
  InjectiveOp op;
  const ir::DataType in_type = quantize ? ir::kFloat32 : ir::DataType::Int(8);
  te::Tensor x = te::placeholder(nn::ShapeExprs(flat), in_type, "x");
  op.output = quantize ? nn::Quantize(x, scale) : nn::Dequantize(x, scale);
  op.inputs = {x};
  // quantize sees values past both clipping bounds; dequantize every int8 but -128.
  const double low = quantize ? -160 * scale : -127, high = quantize ? 160 * scale : 128;
  op.logical_inputs = {{"x", shape, ir::ToDLType(in_type), low, high}};
  op.logical_output_shape = shape;
  op.prepare = ReshapeArrays({flat});
  op.finish = ReshapeArrays({shape});
  op.max_inner_axes = 1;
  op.flops_per_element = 0;
  return op;
}

}  // namespace

absl::StatusOr<InjectiveOp> BuildQuantize(const std::string& name, const OpArgs& args) {
  return Build(name, args, /*quantize=*/true);
}

absl::StatusOr<InjectiveOp> BuildDequantize(const std::string& name, const OpArgs& args) {
  return Build(name, args, /*quantize=*/false);
}

}  // namespace tessel::ops::injective
