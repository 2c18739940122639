// The strategy of target key `gpu` (strategy.h), serving `cuda` and `opencl` targets: which GPU
// template computes an operator when nothing was tuned.
//   conv2d, depthwise (groups = ic = oc)  depthwise_conv2d.gpu
//   conv2d, other grouped                 conv2d_grouped.gpu where this build has it
//   conv2d, everything else               conv2d_direct.gpu (AutoTVM's direct space)
//   any other operator                    its first gpu template by name
// Winograd (conv2d_winograd.gpu) is left to tuning: a log that names it is applied as any other.
#include "compiler/ops/strategy.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

absl::Status NoTemplate(const std::string& op, const target::TargetFacts& facts,
                        const std::string& why = "") {
  return absl::UnimplementedError(absl::StrCat("no template computes operator '", op,
                                               "' for target '", facts.target.ToString(),
                                               "' (target key gpu)", why));
}

absl::StatusOr<std::string> GpuStrategy(const std::string& op, const OpArgs& args,
                                        const target::TargetFacts& facts) {
  if (op == "conv2d") {
    TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs attrs, nn::ReadConv2dAttrs(op, args));
    if (attrs.depthwise()) return std::string("depthwise_conv2d.gpu");
    if (attrs.groups > 1) {
      if (FindTemplate("conv2d_grouped.gpu").ok()) return std::string("conv2d_grouped.gpu");
      return NoTemplate(op, facts, absl::StrCat(": groups = ", attrs.groups,
                                                " other than depthwise"));
    }
    return std::string("conv2d_direct.gpu");
  }
  const std::vector<const Template*> candidates = TemplatesFor("gpu", op);
  if (candidates.empty()) return NoTemplate(op, facts);
  return candidates.front()->name;
}

[[maybe_unused]] const bool kRegistered = RegisterStrategy("gpu", GpuStrategy);

}  // namespace
}  // namespace tessel::ops::cuda
