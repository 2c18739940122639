// Logical signatures of the normalizations: batch_norm (inference, NCHW), lrn (NCHW),
// layer_norm (over trailing axes), softmax and log_softmax (along one axis).
#include <absl/strings/str_cat.h>

#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/batch_norm.h"
#include "compiler/ops/nn/layer_norm.h"
#include "compiler/ops/nn/lrn.h"
#include "compiler/ops/nn/softmax.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

absl::StatusOr<LogicalSignature> BatchNorm(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  std::vector<int64_t> shape;
  for (const char* key : {"n", "c", "h", "w"}) {
    TESSEL_ASSIGN_OR_RETURN(int64_t v, r.Extent(key));
    shape.push_back(v);
  }
  TESSEL_ASSIGN_OR_RETURN(double epsilon, r.FloatOr("epsilon", 1e-5));
  if (!(epsilon >= 0)) return r.Error("argument 'epsilon' must not be negative");
  te::Tensor data = Placeholder(shape, "data");
  std::vector<te::Tensor> params;
  for (const char* p : {"gamma", "beta", "mean", "var"})
    params.push_back(Placeholder({shape[1]}, p));
  absl::StatusOr<nn::BatchNormTensors> bn =
      nn::BatchNormInference(data, params[0], params[1], params[2], params[3], epsilon);
  if (!bn.ok()) return r.Error(std::string(bn.status().message()));
  return LogicalSignature{{SpecOf(data, "data"), SpecOf(params[0], "gamma"),
                           SpecOf(params[1], "beta"), SpecOf(params[2], "mean"),
                           // A variance is positive.
                           SpecOf(params[3], "var", 0.1, 2.0)},
                          {SpecOf(bn->output, "out")}};
}

// softmax, or log_softmax when `log`.
absl::StatusOr<LogicalSignature> Softmax(const std::string& op, const OpArgs& args, bool log) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, r.Shape("shape"));
  const int64_t rank = static_cast<int64_t>(shape.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, r.IntOr("axis", -1, -rank));
  if (axis >= rank) return r.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<nn::SoftmaxTensors> s = log ? nn::LogSoftmax(x, axis) : nn::Softmax(x, axis);
  if (!s.ok()) return r.Error(std::string(s.status().message()));
  return LogicalSignature{{SpecOf(x, "x", -4, 4)}, {SpecOf(s->output, "out")}};
}

absl::StatusOr<LogicalSignature> Lrn(const std::string& op, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(const nn::LrnAttrs a, nn::ReadLrnAttrs(ArgReader(op, args)));
  te::Tensor x = Placeholder({a.n, a.c, a.h, a.w}, "x");
  return LogicalSignature{{SpecOf(x, "x")}, {SpecOf(nn::Lrn(x, a).output, "out")}};
}

absl::StatusOr<LogicalSignature> LayerNorm(const std::string& op, const OpArgs& args) {
  ArgReader r(op, args);
  TESSEL_ASSIGN_OR_RETURN(const nn::LayerNormAttrs a, nn::ReadLayerNormAttrs(r));
  te::Tensor x = Placeholder(a.shape, "x");
  te::Tensor gamma = Placeholder(a.normalized_shape(), "gamma");
  te::Tensor beta = Placeholder(a.normalized_shape(), "beta");
  absl::StatusOr<nn::LayerNormTensors> ln = nn::LayerNorm(x, gamma, beta, a.axis, a.epsilon);
  if (!ln.ok()) return r.Error(std::string(ln.status().message()));
  return LogicalSignature{
      {SpecOf(x, "x", -4, 4), SpecOf(gamma, "gamma", 0.5, 1.5), SpecOf(beta, "beta")},
      {SpecOf(ln->output, "out")}};
}

}  // namespace

void AddNormOps(SignatureTable& table) {
  table["batch_norm"] = BatchNorm;
  table["layer_norm"] = LayerNorm;
  table["lrn"] = Lrn;
  table["softmax"] = [](const std::string& op, const OpArgs& args) {
    return Softmax(op, args, false);
  };
  table["log_softmax"] = [](const std::string& op, const OpArgs& args) {
    return Softmax(op, args, true);
  };
}

}  // namespace tessel::ops::logical
