// torchvision's ResNet-18: a 7x7/2 stem with batch_norm, relu and a 3x3/2 max pool, four stages
// of two basic blocks (64, 128, 256, 512 channels; the first block of stages 2-4 halves the
// resolution and projects its shortcut with a 1x1/2 conv + batch_norm), global average pool,
// flatten, dense 1000. Names follow torchvision's parameters ("layer2.0.downsample.0.weight").
#include <absl/strings/str_cat.h>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {
namespace {

ValueId BasicBlock(LayerBuilder& l, ValueId x, const std::string& p, int64_t oc, int64_t stride) {
  const int64_t ic = l.b().type(x).shape.size() == 4 ? l.b().type(x).shape[1] : 0;
  ValueId y = l.Conv2d(p + ".conv1", x, oc, 3, stride, 1);
  y = l.BatchNorm(p + ".bn1", y);
  y = l.Relu(p + ".relu1", y);
  y = l.Conv2d(p + ".conv2", y, oc, 3, 1, 1);
  y = l.BatchNorm(p + ".bn2", y);
  ValueId shortcut = x;
  if (stride != 1 || oc != ic) {
    shortcut = l.Conv2d(p + ".downsample.0", x, oc, 1, stride, 0);
    shortcut = l.BatchNorm(p + ".downsample.1", shortcut);
  }
  y = l.b().Op("add", {y, shortcut}, {}, p + ".add");
  return l.Relu(p + ".relu2", y);
}

}  // namespace

absl::StatusOr<graph::Graph> BuildResnet18(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("image", {{options.batch, 3, 224, 224}});
  x = l.Conv2d("conv1", x, 64, 7, 2, 3);
  x = l.BatchNorm("bn1", x);
  x = l.Relu("relu", x);
  x = b.Op("max_pool2d", {x}, {{"kh", 3}, {"kw", 3}, {"stride", {2, 2}}, {"pad", {1, 1, 1, 1}}},
           "maxpool");
  int stage = 1;
  for (const int64_t channels : {64, 128, 256, 512}) {
    const std::string layer = absl::StrCat("layer", stage++);
    x = BasicBlock(l, x, layer + ".0", channels, channels == 64 ? 1 : 2);
    x = BasicBlock(l, x, layer + ".1", channels, 1);
  }
  x = b.Op("global_avg_pool2d", {x}, {}, "avgpool");
  x = b.Op("flatten", {x}, {{"axis", 1}}, "flatten");
  x = l.Dense("fc", x, 1000, /*bias=*/true, /*relu_follows=*/false);
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
