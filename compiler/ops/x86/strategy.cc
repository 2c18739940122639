// The strategy of target key `cpu` (strategy.h): which x86 template computes an operator when
// nothing was tuned.
//   conv2d, depthwise (groups = ic = oc)  depthwise_conv2d_nchwc.x86
//   conv2d, other grouped                 conv2d_nchw.x86
//   conv2d 3x3, stride 1, dilation 1, >= 64 in and out channels
//                                         conv2d_winograd.x86 (F(4x4,3x3): 4x fewer multiplies)
//   conv2d, everything else               conv2d_nchwc.x86
//   conv2d_int8, dense_int8               conv2d_int8.x86, dense_int8.x86 (by the rule below:
//                                         their only templates)
//   any other operator                    its first cpu template by name, the multi-level
//                                         tiling ones (*_multilevel.x86) apart: their spaces are
//                                         for search research, tuned only when asked for by name
#include "compiler/ops/strategy.h"

#include <absl/strings/str_cat.h>

#include <string>
#include <vector>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {
namespace {

std::string Conv2dTemplate(const nn::Conv2dAttrs& a) {
  if (a.depthwise()) return "depthwise_conv2d_nchwc.x86";
  if (a.groups > 1) return "conv2d_nchw.x86";
  const bool winograd_shape = a.kh == 3 && a.kw == 3 && a.stride[0] == 1 && a.stride[1] == 1 &&
                              a.dilation[0] == 1 && a.dilation[1] == 1;
  // Below 64 channels the transforms' memory traffic outweighs the saved multiplies.
  if (winograd_shape && a.ic >= 64 && a.oc >= 64) return "conv2d_winograd.x86";
  return "conv2d_nchwc.x86";
}

absl::StatusOr<std::string> CpuStrategy(const std::string& op, const OpArgs& args,
                                        const target::TargetFacts& facts) {
  if (op == "conv2d") {
    TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs attrs, nn::ReadConv2dAttrs(op, args));
    return Conv2dTemplate(attrs);
  }
  std::vector<const Template*> candidates = TemplatesFor("cpu", op);
  std::erase_if(candidates, [](const Template* t) {
    return t->name.find("_multilevel.") != std::string::npos;
  });
  if (candidates.empty()) {
    return absl::UnimplementedError(absl::StrCat("no template computes operator '", op,
                                                 "' for target '", facts.target.ToString(),
                                                 "' (target key cpu)"));
  }
  return candidates.front()->name;
}

[[maybe_unused]] const bool kRegistered = RegisterStrategy("cpu", CpuStrategy);

}  // namespace
}  // namespace tessel::ops::x86
