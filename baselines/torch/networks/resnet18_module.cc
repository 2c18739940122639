// torchvision's ResNet-18, written as torchvision writes it.
#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

nn::Conv2d Conv(int64_t ic, int64_t oc, int64_t k, int64_t stride, int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(ic, oc, k).stride(stride).padding(pad).bias(false));
}

struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(int64_t ic, int64_t oc, int64_t stride)
      : conv1(register_module("conv1", Conv(ic, oc, 3, stride, 1))),
        bn1(register_module("bn1", nn::BatchNorm2d(oc))),
        conv2(register_module("conv2", Conv(oc, oc, 3, 1, 1))),
        bn2(register_module("bn2", nn::BatchNorm2d(oc))) {
    if (stride != 1 || ic != oc) {
      downsample = register_module("downsample",
                                   nn::Sequential(Conv(ic, oc, 1, stride, 0), nn::BatchNorm2d(oc)));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = torch::relu(bn1(conv1(x)));
    y = bn2(conv2(y));
    return torch::relu(y + (downsample ? downsample->forward(x) : x));
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample{nullptr};
};
TORCH_MODULE(BasicBlock);

struct Resnet18 : NetworkModule {
  Resnet18()
      : conv1(register_module("conv1", Conv(3, 64, 7, 2, 3))),
        bn1(register_module("bn1", nn::BatchNorm2d(64))),
        fc(register_module("fc", nn::Linear(512, 1000))) {
    int64_t ic = 64;
    int stage = 1;
    for (const int64_t oc : {64, 128, 256, 512}) {
      layers.push_back(register_module(
          "layer" + std::to_string(stage++),
          nn::Sequential(BasicBlock(ic, oc, oc == 64 ? 1 : 2), BasicBlock(oc, oc, 1))));
      ic = oc;
    }
  }
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    torch::Tensor x = torch::relu(bn1(conv1(inputs.at(0))));
    x = torch::max_pool2d(x, 3, 2, 1);
    for (nn::Sequential& layer : layers) x = layer->forward(x);
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return {fc(x)};
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  std::vector<nn::Sequential> layers;
  nn::Linear fc;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeResnet18Module() { return std::make_shared<Resnet18>(); }

}  // namespace tessel::baselines::internal
