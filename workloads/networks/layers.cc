#include "workloads/networks/layers.h"

#include <cmath>
#include <random>

#include "compiler/graph/tensor_type.h"
#include "compiler/support/uniform_real.h"

namespace tessel::workloads::networks {
namespace {

// FNV-1a: a hash of the name that is the same on every platform.
uint64_t NameHash(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Kaiming-uniform bound for a layer of this fan-in: gain * sqrt(3 / fan_in).
double KaimingBound(int64_t fan_in, bool relu_follows) {
  const double gain = relu_follows ? std::sqrt(2.0) : 1.0;
  return gain * std::sqrt(3.0 / static_cast<double>(fan_in));
}

int64_t Channels(graph::Builder& b, ValueId x) {
  const std::vector<int64_t>& shape = b.type(x).shape;
  return shape.size() >= 2 ? shape[1] : 1;
}

runtime::NDArray Filled(const std::vector<int64_t>& shape, float value) {
  runtime::NDArray a = runtime::NDArray::Empty(shape, graph::kFloat32);
  std::fill(a.data<float>(), a.data<float>() + a.NumElements(), value);
  return a;
}

}  // namespace

runtime::NDArray UniformArray(const std::vector<int64_t>& shape, double low, double high,
                              uint32_t seed, const std::string& name) {
  runtime::NDArray a = runtime::NDArray::Empty(shape, graph::kFloat32);
  const uint64_t h = NameHash(name);
  std::seed_seq seq{seed, static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32)};
  std::mt19937 rng(seq);
  UniformReal<float> uniform(static_cast<float>(low), static_cast<float>(high));
  float* p = a.data<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = uniform(rng);
  return a;
}

runtime::NDArray ZerosArray(const std::vector<int64_t>& shape) { return Filled(shape, 0.0f); }

ValueId LayerBuilder::Uniform(const std::string& name, const std::vector<int64_t>& shape,
                              double bound) {
  return b_.Constant(name, UniformArray(shape, -bound, bound, seed_, name));
}

ValueId LayerBuilder::Conv2d(const std::string& name, ValueId x, int64_t oc, int64_t k,
                             int64_t stride, int64_t pad, int64_t groups, bool bias) {
  const int64_t ic = Channels(b_, x);
  const int64_t fan_in = ic / groups * k * k;
  const ValueId w =
      Uniform(name + ".weight", {oc, ic / groups, k, k}, KaimingBound(fan_in, /*relu=*/true));
  const ValueId y = b_.Op("conv2d", {x, w},
                          {{"stride", {stride, stride}},
                           {"pad", {pad, pad, pad, pad}},
                           {"dilation", {1, 1}},
                           {"groups", groups}},
                          name);
  if (!bias) return y;
  const ValueId bias_value =
      Uniform(name + ".bias", {oc, 1, 1}, 1.0 / std::sqrt(static_cast<double>(fan_in)));
  return b_.Op("add", {y, bias_value}, {}, name + ".bias_add");
}

ValueId LayerBuilder::ConvTranspose2d(const std::string& name, ValueId x, int64_t oc, int64_t k,
                                      int64_t stride, int64_t pad) {
  const int64_t ic = Channels(b_, x);
  // Each output element sums about ic * (k / stride)^2 products.
  const int64_t taps = std::max<int64_t>(1, (k / stride) * (k / stride));
  const ValueId w =
      Uniform(name + ".weight", {ic, oc, k, k}, KaimingBound(ic * taps, /*relu=*/true));
  return b_.Op(
      "conv2d_transpose", {x, w},
      {{"stride", {stride, stride}}, {"pad", {pad, pad, pad, pad}}, {"output_padding", {0, 0}}},
      name);
}

ValueId LayerBuilder::BatchNorm(const std::string& name, ValueId x) {
  const int64_t c = Channels(b_, x);
  const ValueId gamma =
      b_.Constant(name + ".weight", UniformArray({c}, 0.8, 1.2, seed_, name + ".weight"));
  const ValueId beta = Uniform(name + ".bias", {c}, 0.1);
  const ValueId mean = b_.Constant(name + ".running_mean", Filled({c}, 0.0f));
  const ValueId var = b_.Constant(name + ".running_var", Filled({c}, 1.0f));
  return b_.Op("batch_norm", {x, gamma, beta, mean, var}, {}, name);
}

ValueId LayerBuilder::Dense(const std::string& name, ValueId x, int64_t n, bool bias,
                            bool relu_follows) {
  const int64_t k = b_.type(x).shape.size() == 2 ? b_.type(x).shape[1] : 1;
  const ValueId w = Uniform(name + ".weight", {n, k}, KaimingBound(k, relu_follows));
  if (!bias) return b_.Op("dense", {x, w}, {}, name);
  const ValueId bias_value = Uniform(name + ".bias", {n}, 1.0 / std::sqrt(static_cast<double>(k)));
  return b_.Op("dense", {x, w, bias_value}, {}, name);
}

ValueId LayerBuilder::Relu(const std::string& name, ValueId x) {
  return b_.Op("relu", {x}, {}, name);
}

}  // namespace tessel::workloads::networks
