#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/runtime/ndarray.h"

// The five networks of the paper's end-to-end evaluation (Table 2 / Fig. 14) as graphs, with
// seeded random weights (layers.h): what `tessel` compiles, runs and benchmarks whole. Batch-norm
// running statistics are measured on a seeded batch-1 input (calibrate.h, through libtorch), so
// the same seed gives the same weights at every batch. Each network has one input and one output:
//   resnet18      image float32[N, 3, 224, 224]  -> logits float32[N, 1000]
//   mobilenet_v1  image float32[N, 3, 224, 224]  -> logits float32[N, 1000]
//   dqn           frames float32[N, 4, 84, 84]   -> action values float32[N, 18]
//   dcgan         z float32[N, 100]              -> images float32[N, 3, 64, 64] in (-1, 1)
//   lstm_lm       tokens int32[35, N]            -> log-probabilities float32[35 * N, 10000]
// (lstm_lm: sequence-major as PyTorch's word_language_model; output row t * N + b is step t of
// sequence b.) Weight constants carry torch's parameter names, so baselines/torch/networks can
// load the same values.
//
// Beyond the paper's five, networks users bring today (ModernNetworks; with libtorch modules,
// and exported as PyTorch writes them by workloads/exported):
//   mobilenet_v2  image float32[N, 3, 224, 224]  -> logits float32[N, 1000]
//   bert_base     input_ids, attention_mask int32[N, 128] -> last_hidden_state float32[N, 128, 768]
//
// BuildNetwork and NetworkInputs also make the four small workloads of the paper's Fig. 4
// (operator fusion on and off), which are not in Networks() and have no libtorch module:
//   conv_bn_relu       data float32[N, 128, 28, 28]  -> float32[N, 256, 28, 28]
//   depthwise_bn_relu  data float32[N, 512, 14, 14]  -> float32[N, 512, 14, 14]
//   rnn_cell           x, h float32[N, 128]          -> h' float32[N, 128]
//   lstm_cell          x, h, c float32[N, 128]       -> h', c' float32[N, 128]
// (the cells written with primitive operators; inputs in [-1, 1)).
namespace tessel::workloads::networks {

struct NetworkOptions {
  int64_t batch = 1;  // N above, >= 1
  uint32_t seed = 0;  // the weights'
};

struct NetworkInfo {
  std::string name;
  std::string summary;  // one line, for `tessel list`
};

// The five end-to-end networks, in the order above.
std::vector<NetworkInfo> Networks();
std::vector<std::string> NetworkNames();

// The networks beyond the paper's, in the order above.
std::vector<NetworkInfo> ModernNetworks();
std::vector<std::string> ModernNetworkNames();

// Fig. 4's fusion workloads, in the order above.
std::vector<NetworkInfo> FusionWorkloads();
std::vector<std::string> FusionWorkloadNames();

// The graph of network or fusion workload `name`. NotFound (listing the names) for an unknown name;
// InvalidArgument for a batch below 1.
absl::StatusOr<graph::Graph> BuildNetwork(const std::string& name, const NetworkOptions& options);

// Seeded inputs for a graph BuildNetwork made for `name`, drawn uniformly from the range the
// network expects: images and z in [-1, 1), frames in [0, 1), token ids in [0, 10000) (bert_base:
// [0, 30522), its attention mask 0 or 1 at random) (int32, or
// int64 for a graph imported from the exported model, workloads/exported: the same ids).
absl::StatusOr<std::vector<runtime::NDArray>> NetworkInputs(const std::string& name,
                                                            const graph::Graph& g, uint32_t seed);

}  // namespace tessel::workloads::networks
