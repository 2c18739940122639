#pragma once

#include <string>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/target_facts.h"

// Which x86 template computes a conv2d when nothing was tuned (TVM calls this the strategy):
//   depthwise (groups = ic = oc)          depthwise_conv2d_nchwc.x86
//   other grouped convolutions            conv2d_nchw.x86
//   3x3, stride 1, dilation 1, >= 64 in and out channels
//                                         conv2d_winograd.x86 (F(4x4,3x3): 4x fewer multiplies)
//   everything else                       conv2d_nchwc.x86
namespace tessel::ops::x86 {

std::string SelectConv2dTemplate(const nn::Conv2dAttrs& a, const TargetFacts& facts);

}  // namespace tessel::ops::x86
