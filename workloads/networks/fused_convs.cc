// Fig. 4's two convolution workloads (PAPER.md §5): a convolution, batch_norm and relu, the
// pattern fusion turns from three passes over the activation into one.
//   conv_bn_relu       data float32[N, 128, 28, 28] -> 1x1 conv 128 -> 256 (ResNet's C5-like
//                      pointwise layer) -> batch_norm -> relu -> float32[N, 256, 28, 28]
//   depthwise_bn_relu  data float32[N, 512, 14, 14] -> 3x3 depthwise conv (groups 512, pad 1,
//                      MobileNet's D7) -> batch_norm -> relu -> float32[N, 512, 14, 14]
// No conv bias: the batch_norm's beta is the bias (folded into the conv by the graph passes).
#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildConvBnRelu(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("data", {{options.batch, 128, 28, 28}});
  x = l.Conv2d("conv", x, 256, 1, 1, 0);
  x = l.BatchNorm("bn", x);
  b.Output(l.Relu("relu", x));
  return b.Finish();
}

absl::StatusOr<graph::Graph> BuildDepthwiseBnRelu(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("data", {{options.batch, 512, 14, 14}});
  x = l.Conv2d("conv", x, 512, 3, 1, 1, /*groups=*/512);
  x = l.BatchNorm("bn", x);
  b.Output(l.Relu("relu", x));
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
