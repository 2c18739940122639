// MobileNet v1, width 1.0, 224x224: a 3x3/2 conv to 32 channels, then 13 depthwise-separable
// blocks (depthwise 3x3 conv, groups = channels, + batch_norm + relu; pointwise 1x1 conv +
// batch_norm + relu), global average pool, flatten, dense 1000. relu, not relu6 (the paper's
// and TVM's version; network_ops.h lists the same operators).
#include <absl/strings/str_cat.h>

#include <utility>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildMobilenetV1(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("image", {{options.batch, 3, 224, 224}});
  x = l.Conv2d("conv0", x, 32, 3, 2, 1);
  x = l.BatchNorm("bn0", x);
  x = l.Relu("relu0", x);
  // (pointwise output channels, depthwise stride) of the 13 blocks.
  const std::pair<int64_t, int64_t> blocks[] = {{64, 1},  {128, 2},  {128, 1}, {256, 2}, {256, 1},
                                                {512, 2}, {512, 1},  {512, 1}, {512, 1}, {512, 1},
                                                {512, 1}, {1024, 2}, {1024, 1}};
  int64_t channels = 32;
  int index = 0;
  for (const auto& [oc, stride] : blocks) {
    const std::string p = absl::StrCat("blocks.", index++);
    x = l.Conv2d(p + ".dw", x, channels, 3, stride, 1, /*groups=*/channels);
    x = l.BatchNorm(p + ".dw_bn", x);
    x = l.Relu(p + ".dw_relu", x);
    x = l.Conv2d(p + ".pw", x, oc, 1, 1, 0);
    x = l.BatchNorm(p + ".pw_bn", x);
    x = l.Relu(p + ".pw_relu", x);
    channels = oc;
  }
  x = b.Op("global_avg_pool2d", {x}, {}, "avgpool");
  x = b.Op("flatten", {x}, {{"axis", 1}}, "flatten");
  x = l.Dense("fc", x, 1000, /*bias=*/true, /*relu_follows=*/false);
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
