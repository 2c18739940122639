#include "compiler/ops/template_util.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/check.h"

namespace tessel::ops {

search::Config ConfigFromKnobs(const search::ConfigSpace& space, const nlohmann::json& knobs) {
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << "fallback " << knobs.dump() << ": " << config.status();
  return *config;
}

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

absl::StatusOr<target::GpuFacts> RequireGpu(const std::string& what,
                                            const target::TargetFacts& facts) {
  if (facts.gpu.has_value()) return *facts.gpu;
  return absl::InvalidArgumentError(absl::StrCat(what,
                                                 ": needs a GPU target (cuda or opencl); target '",
                                                 facts.target.ToString(), "' is not a GPU"));
}

void SetDenseSignature(OpProgram& p, const nn::DenseArgs& a, const te::Tensor& data,
                       const te::Tensor& weight, const te::Tensor& bias, const te::Tensor& out) {
  p.args = {data, weight};
  if (a.bias) p.args.push_back(bias);
  p.args.push_back(out);
  p.flops = 2.0 * a.m * a.n * a.k + (a.bias ? 1.0 * a.m * a.n : 0.0);
  p.logical_inputs = {{"data", {a.m, a.k}}, {"weight", {a.n, a.k}}};
  if (a.bias) p.logical_inputs.push_back({"bias", {a.n}});
  p.logical_outputs = {{"out", {a.m, a.n}}};
}

}  // namespace tessel::ops
