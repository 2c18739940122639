// The strategy of target key `mali` (strategy.h), for `opencl -device=mali` targets: the Mali
// schedules of the paper's Fig. 19 where this folder has one, every other operator deferred to
// the `gpu` strategy (NotFound).
//   conv2d, depthwise (groups = ic = oc)  depthwise_conv2d.mali
//   conv2d, groups = 1                    conv2d_spatial_pack.mali
//   dense                                 dense.mali
#include "compiler/ops/strategy.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::mali {
namespace {

absl::StatusOr<std::string> MaliStrategy(const std::string& op, const OpArgs& args,
                                         const target::TargetFacts& facts) {
  if (op == "conv2d") {
    TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs attrs, nn::ReadConv2dAttrs(op, args));
    if (attrs.depthwise()) return std::string("depthwise_conv2d.mali");
    if (attrs.groups == 1) return std::string("conv2d_spatial_pack.mali");
  }
  if (op == "dense") return std::string("dense.mali");
  return absl::NotFoundError(
      absl::StrCat("no mali template for '", op, "' on ", facts.target.ToString()));
}

[[maybe_unused]] const bool kRegistered = RegisterStrategy("mali", MaliStrategy);

}  // namespace
}  // namespace tessel::ops::mali
