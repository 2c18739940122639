#include "compiler/ops/x86/conv2d_strategy.h"

namespace tessel::ops::x86 {

std::string SelectConv2dTemplate(const nn::Conv2dAttrs& a, const TargetFacts&) {
  if (a.depthwise()) return "depthwise_conv2d_nchwc.x86";
  if (a.groups > 1) return "conv2d_nchw.x86";
  const bool winograd_shape = a.kh == 3 && a.kw == 3 && a.stride[0] == 1 && a.stride[1] == 1 &&
                              a.dilation[0] == 1 && a.dilation[1] == 1;
  // Below 64 channels the transforms' memory traffic outweighs the saved multiplies.
  if (winograd_shape && a.ic >= 64 && a.oc >= 64) return "conv2d_winograd.x86";
  return "conv2d_nchwc.x86";
}

}  // namespace tessel::ops::x86
