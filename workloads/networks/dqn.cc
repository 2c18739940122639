// The Nature DQN (Mnih et al. 2015): 4 stacked 84x84 frames, conv 32 8x8/4, conv 64 4x4/2,
// conv 64 3x3/1 (no padding, each with a bias and relu), flatten (3136), dense 512 + relu,
// dense 18 (Atari's full action set).
#include "workloads/networks/builders.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks::internal {

absl::StatusOr<graph::Graph> BuildDqn(const NetworkOptions& options) {
  graph::Builder b;
  LayerBuilder l(b, options.seed);
  ValueId x = b.Input("frames", {{options.batch, 4, 84, 84}});
  x = l.Relu("relu1", l.Conv2d("conv1", x, 32, 8, 4, 0, 1, /*bias=*/true));
  x = l.Relu("relu2", l.Conv2d("conv2", x, 64, 4, 2, 0, 1, /*bias=*/true));
  x = l.Relu("relu3", l.Conv2d("conv3", x, 64, 3, 1, 0, 1, /*bias=*/true));
  x = b.Op("flatten", {x}, {{"axis", 1}}, "flatten");
  x = l.Relu("relu4", l.Dense("fc1", x, 512, /*bias=*/true, /*relu_follows=*/true));
  x = l.Dense("fc2", x, 18, /*bias=*/true, /*relu_follows=*/false);
  b.Output(x);
  return b.Finish();
}

}  // namespace tessel::workloads::networks::internal
