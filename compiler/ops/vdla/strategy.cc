// The strategy of target key `vdla` (strategy.h): the accelerator computes the int8 convolution
// and dense layer (conv2d_int8.vdla, dense_int8.vdla); other operators stay on the host, which
// the graph's partitioning decides, not this strategy.
#include "compiler/ops/strategy.h"

#include <absl/strings/str_cat.h>

namespace tessel::ops::vdla {
namespace {

absl::StatusOr<std::string> VdlaStrategy(const std::string& op, const OpArgs& /*args*/,
                                         const target::TargetFacts& facts) {
  const std::vector<const Template*> candidates = TemplatesFor("vdla", op);
  if (candidates.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "no template computes operator '", op, "' for target '", facts.target.ToString(),
        "' (target key vdla; VDLA computes conv2d_int8 and dense_int8)"));
  }
  return candidates.front()->name;
}

[[maybe_unused]] const bool kRegistered = RegisterStrategy("vdla", VdlaStrategy);

}  // namespace
}  // namespace tessel::ops::vdla
