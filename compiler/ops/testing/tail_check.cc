#include "compiler/ops/testing/tail_check.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "baselines/torch/reference.h"
#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"
#include "compiler/te/compute.h"

namespace tessel::ops::testing {
namespace {

// want[i] = max(want[i] + bias[channel of i], 0) + residual[i], on the host (logical NCHW-like
// row-major layout: axis 1 is the channel).
void ApplyTestTail(runtime::NDArray& want, const runtime::NDArray& bias,
                   const runtime::NDArray& residual) {
  const std::vector<int64_t>& shape = want.shape();
  int64_t inner = 1;
  for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
  float* w = want.data<float>();
  const float* b = bias.data<float>();
  const float* r = residual.data<float>();
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const int64_t channel = (i / inner) % shape[1];
    w[i] = std::max(w[i] + b[channel], 0.0f) + r[i];
  }
}

}  // namespace

absl::Status CheckTailConfig(const Template& t, const OpArgs& args, const search::Config& config,
                             const CheckOptions& options) {
  const std::string where =
      absl::StrCat(t.name, " with a tail, ", args.dump(), " config ", config.ToString());
  auto annotate = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
  };
  if (!t.instantiate_with_tail) return annotate(absl::FailedPreconditionError("takes no tail"));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  absl::StatusOr<OpProgram> plain = t.instantiate(config, args, facts);
  if (!plain.ok()) return annotate(plain.status());
  const std::vector<int64_t> shape = plain->logical_outputs.at(0).shape;
  if (shape.size() < 2) return annotate(absl::InvalidArgumentError("output rank below 2"));

  // The bias as [C, 1, ...]: numpy broadcasting reads it at l[1].
  std::vector<int64_t> bias_shape(shape.size() - 1, 1);
  bias_shape[0] = shape[1];
  const OutputTail tail =
      BroadcastingTail(shape, {"tail_bias", "tail_residual"}, {bias_shape, shape},
                       [](ir::Expr v, const std::vector<ir::Expr>& reads) {
                         return ir::max(v + reads[0], ir::MakeZero(ir::kFloat32)) + reads[1];
                       });
  absl::StatusOr<OpProgram> fused = t.instantiate_with_tail(config, args, facts, tail);
  if (!fused.ok()) return annotate(fused.status());
  absl::StatusOr<std::optional<runtime::Function>> f = CompileToCheck(*fused, options.target);
  if (!f.ok()) return annotate(f.status());
  if (!f->has_value()) return absl::OkStatus();
  std::vector<runtime::NDArray> inputs = RandomInputs(fused->logical_inputs, options.seed);
  absl::StatusOr<std::vector<runtime::NDArray>> got =
      RunLogical(*fused, **f, inputs, target::TargetDevice(options.target));
  if (!got.ok()) return annotate(got.status());

  const size_t own = plain->logical_inputs.size();
  if (inputs.size() != own + 2) {
    return annotate(absl::InternalError(
        absl::StrCat("the fused program takes ", inputs.size(), " inputs, expected ", own + 2)));
  }
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::TorchReference(
      t.op, args, std::vector<runtime::NDArray>(inputs.begin(), inputs.begin() + own));
  if (!want.ok()) return annotate(want.status());
  ApplyTestTail((*want)[0], inputs[own], inputs[own + 1]);
  absl::Status s = CompareOutputs(*got, *want, options);
  return s.ok() ? s : annotate(s);
}

absl::Status CheckTailRandomConfigs(const Template& t, const OpArgs& args, int n,
                                    const CheckOptions& options) {
  return ForFallbackAndRandomConfigs(t, args, n, options, [&](const search::Config& c) {
    return CheckTailConfig(t, args, c, options);
  });
}

}  // namespace tessel::ops::testing
