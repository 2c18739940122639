// batch_norm as an injective compute: inference batch normalization of NCHW data, the
// per-channel statistics folded into a scale and a shift (two [C] root stages), the output one
// multiply-add per element over the data viewed as [N, C, H * W]. Flops: 2 per output element
// (the fold is not counted).
#include <absl/strings/str_cat.h>

#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/batch_norm.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {

absl::StatusOr<InjectiveOp> BuildBatchNorm(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(int64_t n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(int64_t c, reader.Int("c"));
  TESSEL_ASSIGN_OR_RETURN(int64_t h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(int64_t w, reader.Int("w"));
  TESSEL_ASSIGN_OR_RETURN(double epsilon, reader.FloatOr("epsilon", 1e-5));
  if (!(epsilon >= 0)) return reader.Error("argument 'epsilon' must not be negative");
  const std::vector<int64_t> shape = {n, c, h, w};
  // The program reads the data as [N, C, H * W] (prepare and finish reshape).
  const std::vector<int64_t> view = {n, c, h * w};
  InjectiveOp op;
  te::Tensor data = te::placeholder(nn::ShapeExprs(view), ir::kFloat32, "data");
  std::vector<te::Tensor> params;
  for (const char* p : {"gamma", "beta", "mean", "var"}) {
    params.push_back(te::placeholder(nn::ShapeExprs({c}), ir::kFloat32, p));
  }
  TESSEL_ASSIGN_OR_RETURN(
      nn::BatchNormTensors bn,
      nn::BatchNormInference(data, params[0], params[1], params[2], params[3], epsilon));
  op.inputs = {data, params[0], params[1], params[2], params[3]};
  op.output = bn.output;
  op.root_stages = {bn.scale, bn.shift};
  op.logical_inputs = {{"data", shape},
                       {"gamma", {c}},
                       {"beta", {c}},
                       {"mean", {c}},
                       // A variance is positive.
                       {"var", {c}, {kDLFloat, 32, 1}, 0.1, 2.0}};
  op.logical_output_shape = shape;
  op.prepare = ReshapeArrays({view, {c}, {c}, {c}, {c}});
  op.finish = ReshapeArrays({shape});
  op.flops_per_element = 2;
  return op;
}

}  // namespace tessel::ops::injective
