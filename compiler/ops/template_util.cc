#include "compiler/ops/template_util.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/check.h"

namespace tessel::ops {

search::Config ConfigFromKnobs(const search::ConfigSpace& space, const nlohmann::json& knobs) {
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << "fallback " << knobs.dump() << ": " << config.status();
  return *config;
}

absl::StatusOr<target::GpuFacts> RequireGpu(const std::string& what,
                                            const target::TargetFacts& facts) {
  if (facts.gpu.has_value()) return *facts.gpu;
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": needs a GPU target (cuda or opencl); target '",
                   facts.target.ToString(), "' is not a GPU"));
}

}  // namespace tessel::ops
