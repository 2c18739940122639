// The DCGAN generator for 64x64 images (Radford et al.): z of 100 projected by a dense layer
// (no bias) and reshaped to 512x4x4 (the paper's "project and reshape"; PyTorch's example does
// the same arithmetic as a 4x4 conv2d_transpose on a 1x1 input), batch_norm + relu, then four
// conv2d_transpose 4x4/2 pad 1 (no bias) to 256x8x8, 128x16x16, 64x32x32 (each + batch_norm +
// relu) and 3x64x64, tanh.
#include <absl/strings/str_cat.h>

#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildDcgan(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("z", {{options.batch, 100}});
  x = l.Dense("project", x, 512 * 4 * 4, /*bias=*/false, /*relu_follows=*/true);
  x = b.Op("reshape", {x}, {{"newshape", {options.batch, 512, 4, 4}}}, "project.reshape");
  x = l.Relu("relu0", l.BatchNorm("bn0", x));
  int index = 1;
  for (const int64_t oc : {256, 128, 64, 3}) {
    const std::string deconv = absl::StrCat("deconv", index);
    x = l.ConvTranspose2d(deconv, x, oc, 4, 2, 1);
    if (oc != 3) {
      x = l.Relu(absl::StrCat("relu", index), l.BatchNorm(absl::StrCat("bn", index), x));
    }
    ++index;
  }
  x = b.Op("tanh", {x}, {}, "tanh");
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
