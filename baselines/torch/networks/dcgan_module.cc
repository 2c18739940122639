// The DCGAN generator: project and reshape to 512x4x4, four 4x4/2 transposed convolutions.
#include <string>

#include "baselines/torch/networks/modules.h"

namespace tessel::baselines::internal {
namespace {

namespace nn = torch::nn;

struct Dcgan : NetworkModule {
  Dcgan()
      : project(register_module("project",
                                nn::Linear(nn::LinearOptions(100, 512 * 4 * 4).bias(false)))),
        bn0(register_module("bn0", nn::BatchNorm2d(512))) {
    int64_t ic = 512;
    int index = 1;
    for (const int64_t oc : {256, 128, 64, 3}) {
      const std::string k = std::to_string(index++);
      deconvs.push_back(register_module(
          "deconv" + k,
          nn::ConvTranspose2d(
              nn::ConvTranspose2dOptions(ic, oc, 4).stride(2).padding(1).bias(false))));
      if (oc != 3) bns.push_back(register_module("bn" + k, nn::BatchNorm2d(oc)));
      ic = oc;
    }
  }
  std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) override {
    torch::Tensor x = project(inputs.at(0)).view({-1, 512, 4, 4});
    x = torch::relu(bn0(x));
    for (size_t i = 0; i < deconvs.size(); ++i) {
      x = deconvs[i](x);
      if (i < bns.size()) x = torch::relu(bns[i](x));
    }
    return {torch::tanh(x)};
  }
  nn::Linear project;
  nn::BatchNorm2d bn0;
  std::vector<nn::ConvTranspose2d> deconvs;
  std::vector<nn::BatchNorm2d> bns;
};

}  // namespace

std::shared_ptr<NetworkModule> MakeDcganModule() { return std::make_shared<Dcgan>(); }

}  // namespace tessel::baselines::internal
