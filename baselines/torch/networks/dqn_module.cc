// The Nature DQN: three convolutions with biases, two dense layers, relu between.
#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

struct Dqn : NetworkModule {
  Dqn()
      : conv1(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(4, 32, 8).stride(4)))),
        conv2(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(32, 64, 4).stride(2)))),
        conv3(register_module("conv3", nn::Conv2d(nn::Conv2dOptions(64, 64, 3)))),
        fc1(register_module("fc1", nn::Linear(3136, 512))),
        fc2(register_module("fc2", nn::Linear(512, 18))) {}
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    torch::Tensor x = torch::relu(conv1(inputs.at(0)));
    x = torch::relu(conv2(x));
    x = torch::relu(conv3(x));
    return {fc2(torch::relu(fc1(x.flatten(1))))};
  }
  nn::Conv2d conv1, conv2, conv3;
  nn::Linear fc1, fc2;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeDqnModule() { return std::make_shared<Dqn>(); }

}  // namespace tessel::baselines::internal
