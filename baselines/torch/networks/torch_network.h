#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// The networks of workloads/networks written with libtorch's modules (Conv2d, BatchNorm2d,
// Linear, ConvTranspose2d, Embedding, LSTM, ...), the baseline whole networks are compared
// against. A TorchNetwork takes its weights from a graph BuildNetwork made: every parameter and
// buffer of the torch module is copied from the graph constant of the same name (torch's
// parameter names, "layer1.0.conv1.weight"), so the two compute the same function. This header
// keeps torch's headers out of the files that include it.
namespace tessel::baselines {

class TorchNetwork {
 public:
  TorchNetwork(TorchNetwork&&) noexcept;
  TorchNetwork& operator=(TorchNetwork&&) noexcept;
  ~TorchNetwork();

  // The outputs for inputs of the graph's input types (one per graph input; errors name the
  // input that differs), in inference mode, without autograd.
  absl::StatusOr<std::vector<runtime::NDArray>> Run(
      const std::vector<runtime::NDArray>& inputs) const;
  const std::string& name() const;

  struct Impl;

 private:
  explicit TorchNetwork(std::unique_ptr<Impl> impl);
  friend absl::StatusOr<TorchNetwork> MakeTorchNetwork(const std::string& name,
                                                       const graph::Graph& g);
  std::unique_ptr<Impl> impl_;
};

// The torch version of network `name` with g's weights. NotFound (listing the names) for an
// unknown name; InvalidArgument naming the parameter when g lacks a constant of that name or
// its shape differs (extents of 1 aside: a conv bias [oc, 1, 1] loads into torch's [oc]).
absl::StatusOr<TorchNetwork> MakeTorchNetwork(const std::string& name, const graph::Graph& g);

std::vector<std::string> TorchNetworkNames();

// libtorch's intra-op threads for every TorchNetwork (process-wide, torch::set_num_threads);
// n >= 1.
absl::Status SetTorchThreads(int n);
int TorchThreads();

}  // namespace tessel::baselines
