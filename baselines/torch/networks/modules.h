#pragma once

// The module headers these networks use, not <torch/torch.h>: a third of each file's compile.
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <memory>
#include <vector>

// The torch modules of the networks, one file each. Submodules are registered under the names
// workloads/networks gives the graph constants, so named_parameters() and named_buffers() list
// the constants a module needs.
namespace tessel::baselines::internal {

struct NetworkModule : torch::nn::Module {
  // The graph's outputs from its inputs (same order; token ids as int32).
  virtual std::vector<torch::Tensor> Forward(const std::vector<torch::Tensor>& inputs) = 0;
};

std::shared_ptr<NetworkModule> MakeResnet18Module();
std::shared_ptr<NetworkModule> MakeMobilenetV1Module();
std::shared_ptr<NetworkModule> MakeMobilenetV2Module();
std::shared_ptr<NetworkModule> MakeBertBaseModule();
std::shared_ptr<NetworkModule> MakeDqnModule();
std::shared_ptr<NetworkModule> MakeDcganModule();
std::shared_ptr<NetworkModule> MakeLstmLmModule();

}  // namespace tessel::baselines::internal
