// torchvision's MobileNet v2 1.0: features (a Sequential of Conv2dNormActivation and inverted
// residual blocks, relu6), adaptive average pool, classifier (dropout, linear). Submodules are
// nested as torchvision nests them, so parameter names match ("features.3.conv.1.0.weight").
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/dropout.h>

#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

// A Sequential that can sit in another: AnyModule needs a forward of fixed types.
struct StackImpl : nn::SequentialImpl {
  using SequentialImpl::SequentialImpl;
  torch::Tensor forward(torch::Tensor x) { return SequentialImpl::forward(x); }
};
TORCH_MODULE(Stack);

Stack ConvBnRelu6(int64_t ic, int64_t oc, int64_t k, int64_t stride, int64_t groups) {
  return Stack(nn::Conv2d(nn::Conv2dOptions(ic, oc, k)
                              .stride(stride)
                              .padding((k - 1) / 2)
                              .groups(groups)
                              .bias(false)),
               nn::BatchNorm2d(oc), nn::ReLU6());
}

struct InvertedResidualImpl : nn::Module {
  InvertedResidualImpl(int64_t ic, int64_t oc, int64_t stride, int64_t expand)
      : residual(stride == 1 && ic == oc) {
    const int64_t hidden = ic * expand;
    if (expand != 1) conv->push_back(ConvBnRelu6(ic, hidden, 1, 1, 1));
    conv->push_back(ConvBnRelu6(hidden, hidden, 3, stride, hidden));
    conv->push_back(nn::Conv2d(nn::Conv2dOptions(hidden, oc, 1).bias(false)));
    conv->push_back(nn::BatchNorm2d(oc));
    register_module("conv", conv);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return residual ? x + conv->forward(x) : conv->forward(x);
  }
  bool residual;
  nn::Sequential conv;
};
TORCH_MODULE(InvertedResidual);

struct MobilenetV2 : NetworkModule {
  MobilenetV2() {
    features->push_back(ConvBnRelu6(3, 32, 3, 2, 1));
    const int64_t settings[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int64_t ic = 32;
    for (const auto& [t, c, n, s] : settings) {
      for (int64_t i = 0; i < n; ++i) {
        features->push_back(InvertedResidual(ic, c, i == 0 ? s : 1, t));
        ic = c;
      }
    }
    features->push_back(ConvBnRelu6(ic, 1280, 1, 1, 1));
    register_module("features", features);
    classifier->push_back(nn::Dropout(0.2));
    classifier->push_back(nn::Linear(1280, 1000));
    register_module("classifier", classifier);
  }
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    const torch::Tensor x = features->forward(inputs.at(0));
    return {classifier->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1))};
  }
  nn::Sequential features;
  nn::Sequential classifier;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeMobilenetV2Module() { return std::make_shared<MobilenetV2>(); }

}  // namespace tessel::baselines::internal
