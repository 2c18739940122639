// MobileNet v1 1.0 with relu: 13 depthwise-separable blocks.
#include <string>
#include <utility>

#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

struct SeparableImpl : nn::Module {
  SeparableImpl(int64_t ic, int64_t oc, int64_t stride)
      : dw(register_module(
            "dw", nn::Conv2d(nn::Conv2dOptions(ic, ic, 3).stride(stride).padding(1).groups(ic).bias(
                      false)))),
        dw_bn(register_module("dw_bn", nn::BatchNorm2d(ic))),
        pw(register_module("pw", nn::Conv2d(nn::Conv2dOptions(ic, oc, 1).bias(false)))),
        pw_bn(register_module("pw_bn", nn::BatchNorm2d(oc))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(pw_bn(pw(torch::relu(dw_bn(dw(x))))));
  }
  nn::Conv2d dw;
  nn::BatchNorm2d dw_bn;
  nn::Conv2d pw;
  nn::BatchNorm2d pw_bn;
};
TORCH_MODULE(Separable);

struct MobilenetV1 : NetworkModule {
  MobilenetV1()
      : conv0(register_module(
            "conv0", nn::Conv2d(nn::Conv2dOptions(3, 32, 3).stride(2).padding(1).bias(false)))),
        bn0(register_module("bn0", nn::BatchNorm2d(32))),
        fc(register_module("fc", nn::Linear(1024, 1000))) {
    const std::pair<int64_t, int64_t> shapes[] = {{64, 1},  {128, 2},  {128, 1}, {256, 2}, {256, 1},
                                                  {512, 2}, {512, 1},  {512, 1}, {512, 1}, {512, 1},
                                                  {512, 1}, {1024, 2}, {1024, 1}};
    int64_t ic = 32;
    for (const auto& [oc, stride] : shapes) {
      blocks->push_back(Separable(ic, oc, stride));
      ic = oc;
    }
    register_module("blocks", blocks);
  }
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    torch::Tensor x = torch::relu(bn0(conv0(inputs.at(0))));
    x = blocks->forward(x);
    return {fc(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1))};
  }
  nn::Conv2d conv0;
  nn::BatchNorm2d bn0;
  nn::Sequential blocks;
  nn::Linear fc;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeMobilenetV1Module() { return std::make_shared<MobilenetV1>(); }

}  // namespace tessel::baselines::internal
