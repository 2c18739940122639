// torchvision's MobileNet v2, width 1.0, 224x224: a 3x3/2 conv to 32 channels, 17 inverted
// residual blocks (expand 1x1 conv + batch_norm + relu6 unless the expansion is 1, depthwise 3x3
// + batch_norm + relu6, project 1x1 + batch_norm, and a residual add when the stride is 1 and the
// channels stay), a 1x1 conv to 1280 + batch_norm + relu6, global average pool, flatten, dense
// 1000 (the classifier's dropout is the identity at inference). relu6 is clip [0, 6]. Names
// follow torchvision's parameters ("features.3.conv.1.0.weight").
#include <absl/strings/str_cat.h>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {
namespace {

ValueId Relu6(LayerBuilder& l, const std::string& name, ValueId x) {
  return l.b().Op("clip", {x}, {{"min", 0.0}, {"max", 6.0}}, name);
}

// torchvision's Conv2dNormActivation: conv, batch_norm, relu6 as "<p>.0", "<p>.1", "<p>.2".
ValueId ConvBnRelu6(LayerBuilder& l, const std::string& p, ValueId x, int64_t oc, int64_t k,
                    int64_t stride, int64_t groups) {
  x = l.Conv2d(p + ".0", x, oc, k, stride, (k - 1) / 2, groups);
  x = l.BatchNorm(p + ".1", x);
  return Relu6(l, p + ".2", x);
}

ValueId InvertedResidual(LayerBuilder& l, const std::string& p, ValueId x, int64_t oc,
                         int64_t stride, int64_t expand) {
  const int64_t ic = l.b().type(x).shape[1];
  const int64_t hidden = ic * expand;
  ValueId y = x;
  int index = 0;
  auto next = [&] { return absl::StrCat(p, ".conv.", index++); };
  if (expand != 1) y = ConvBnRelu6(l, next(), y, hidden, 1, 1, 1);
  y = ConvBnRelu6(l, next(), y, hidden, 3, stride, hidden);
  y = l.Conv2d(next(), y, oc, 1, 1, 0);
  y = l.BatchNorm(next(), y);
  if (stride == 1 && ic == oc) y = l.b().Op("add", {x, y}, {}, p + ".add");
  return y;
}

}  // namespace

absl::StatusOr<graph::Graph> BuildMobilenetV2(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("image", {{options.batch, 3, 224, 224}});
  x = ConvBnRelu6(l, "features.0", x, 32, 3, 2, 1);
  // (expansion t, output channels c, repeats n, first stride s), the table of Sandler et al.'s
  // paper.
  const int64_t settings[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 1;
  for (const auto& [t, c, n, s] : settings) {
    for (int64_t i = 0; i < n; ++i) {
      x = InvertedResidual(l, absl::StrCat("features.", block++), x, c, i == 0 ? s : 1, t);
    }
  }
  x = ConvBnRelu6(l, absl::StrCat("features.", block), x, 1280, 1, 1, 1);
  x = b.Op("global_avg_pool2d", {x}, {}, "avgpool");
  x = b.Op("flatten", {x}, {{"axis", 1}}, "flatten");
  x = l.Dense("classifier.1", x, 1000, /*bias=*/true, /*relu_follows=*/false);
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
