#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/builder.h"
#include "compiler/runtime/ndarray.h"

// The layers the networks share, added to a graph::Builder with seeded weights. Constants are
// named as torch names the parameters of the same layer ("<layer>.weight", "<layer>.bias",
// "<layer>.running_mean", ...), which is how baselines/torch/networks loads them.
//
// Weights: each constant is drawn from its own generator, seeded by (seed, constant name), so a
// constant's values depend only on the seed and its name. Convolutions and dense layers are
// Kaiming-uniform over their fan-in (gain sqrt(2) before a relu, 1 otherwise); batch_norm's
// gamma is uniform in [0.8, 1.2] and beta in [-0.1, 0.1]. Its running statistics start as mean 0
// and variance 1, placeholders that CalibrateBatchNorm (calibrate.h) replaces with the
// statistics of the layer's input on a seeded input, as training would leave them.
namespace tessel::workloads::networks {

using graph::ValueId;

// A float32 array of `shape` uniform in [low, high), from a generator seeded by (seed, name).
runtime::NDArray UniformArray(const std::vector<int64_t>& shape, double low, double high,
                              uint32_t seed, const std::string& name);
runtime::NDArray ZerosArray(const std::vector<int64_t>& shape);

class LayerBuilder {
 public:
  LayerBuilder(graph::Builder& b, uint32_t seed) : b_(b), seed_(seed) {}
  graph::Builder& b() { return b_; }

  // A constant uniform in [-bound, bound).
  ValueId Uniform(const std::string& name, const std::vector<int64_t>& shape, double bound);
  // conv2d without bias (weight "<name>.weight", OIHW), square kernel, symmetric padding. With
  // `bias`, an add of "<name>.bias" ([oc, 1, 1]) follows, node "<name>.bias_add".
  ValueId Conv2d(const std::string& name, ValueId x, int64_t oc, int64_t k, int64_t stride,
                 int64_t pad, int64_t groups = 1, bool bias = false);
  // conv2d_transpose without bias (weight "<name>.weight", IOHW as torch's).
  ValueId ConvTranspose2d(const std::string& name, ValueId x, int64_t oc, int64_t k, int64_t stride,
                          int64_t pad);
  // batch_norm with "<name>.weight" (gamma), ".bias" (beta), ".running_mean", ".running_var".
  ValueId BatchNorm(const std::string& name, ValueId x);
  // dense (weight "<name>.weight" [n, k], with `bias` "<name>.bias" [n]); gain: sqrt(2) when a
  // relu follows, else 1.
  ValueId Dense(const std::string& name, ValueId x, int64_t n, bool bias, bool relu_follows);
  ValueId Relu(const std::string& name, ValueId x);

 private:
  graph::Builder& b_;
  uint32_t seed_;
};

}  // namespace tessel::workloads::networks
