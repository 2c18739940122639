#include "workloads/networks/network.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <functional>
#include <map>
#include <random>

#include "compiler/support/status_macros.h"
#include "compiler/support/uniform_real.h"
#include "workloads/networks/builders.h"
#include "workloads/networks/calibrate.h"

namespace tessel::workloads::networks {
namespace {

enum class Group { kPaper, kModern, kFusion };

struct Entry {
  NetworkInfo info;
  std::function<absl::StatusOr<graph::Graph>(const NetworkOptions&)> build;
  double input_low, input_high;  // the inputs' range (token ids: [0, vocabulary))
  bool batch_norm = false;       // whose statistics CalibrateBatchNorm sets
  Group group = Group::kPaper;
  // Per input, when they differ: [low, high) of each (else every input's is the one above).
  std::vector<std::pair<double, double>> input_ranges = {};
};

const std::vector<Entry>& Table() {
  static const auto* const table = new std::vector<Entry>{
      {{"resnet18", "torchvision's ResNet-18, 224x224 image -> 1000 logits"},
       internal::BuildResnet18,
       -1,
       1,
       true},
      {{"mobilenet_v1", "MobileNet v1 1.0 (relu), 224x224 image -> 1000 logits"},
       internal::BuildMobilenetV1,
       -1,
       1,
       true},
      {{"dqn", "the Nature DQN, 4x84x84 frames -> 18 action values"}, internal::BuildDqn, 0, 1},
      {{"dcgan", "the DCGAN generator, z of 100 -> 3x64x64 image"},
       internal::BuildDcgan,
       -1,
       1,
       true},
      {{"lstm_lm",
        "2-layer LSTM language model (hidden 650, vocabulary 10000), 35 tokens -> log-probs"},
       internal::BuildLstmLm,
       0,
       static_cast<double>(internal::kLstmVocabulary)},
      {{"mobilenet_v2", "torchvision's MobileNet v2 1.0 (relu6), 224x224 image -> 1000 logits"},
       internal::BuildMobilenetV2,
       -1,
       1,
       true,
       Group::kModern},
      {{"bert_base",
        "a BERT-base encoder (12 layers, hidden 768, 12 heads), 128 token ids and their "
        "attention mask -> last hidden state"},
       internal::BuildBertBase,
       0,
       static_cast<double>(internal::kBertVocabulary),
       false,
       Group::kModern,
       {{0, static_cast<double>(internal::kBertVocabulary)}, {0, 2}}},
      {{"conv_bn_relu", "Fig. 4: 1x1 conv 128 -> 256 at 28x28, batch_norm, relu"},
       internal::BuildConvBnRelu,
       -1,
       1,
       true,
       Group::kFusion},
      {{"depthwise_bn_relu", "Fig. 4: 3x3 depthwise conv at 512x14x14, batch_norm, relu"},
       internal::BuildDepthwiseBnRelu,
       -1,
       1,
       true,
       Group::kFusion},
      {{"rnn_cell", "Fig. 4: an RNN cell (tanh, hidden 128) from dense, add and tanh"},
       internal::BuildRnnCell,
       -1,
       1,
       false,
       Group::kFusion},
      {{"lstm_cell", "Fig. 4: an LSTM cell (hidden 128) from dense, take and element-wise ops"},
       internal::BuildLstmCell,
       -1,
       1,
       false,
       Group::kFusion},
  };
  return *table;
}

absl::StatusOr<const Entry*> Find(const std::string& name) {
  for (const Entry& e : Table()) {
    if (e.info.name == name) return &e;
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown network '", name, "'; the networks are ", absl::StrJoin(NetworkNames(), ", "),
      "; beyond the paper's ", absl::StrJoin(ModernNetworkNames(), ", "), "; the fusion workloads ",
      absl::StrJoin(FusionWorkloadNames(), ", ")));
}

std::vector<NetworkInfo> InfosOf(Group group) {
  std::vector<NetworkInfo> out;
  for (const Entry& e : Table()) {
    if (e.group == group) out.push_back(e.info);
  }
  return out;
}

std::vector<std::string> NamesOf(Group group) {
  std::vector<std::string> out;
  for (const NetworkInfo& info : InfosOf(group)) out.push_back(info.name);
  return out;
}

}  // namespace

std::vector<NetworkInfo> Networks() { return InfosOf(Group::kPaper); }
std::vector<std::string> NetworkNames() { return NamesOf(Group::kPaper); }
std::vector<NetworkInfo> ModernNetworks() { return InfosOf(Group::kModern); }
std::vector<std::string> ModernNetworkNames() { return NamesOf(Group::kModern); }
std::vector<NetworkInfo> FusionWorkloads() { return InfosOf(Group::kFusion); }
std::vector<std::string> FusionWorkloadNames() { return NamesOf(Group::kFusion); }

absl::StatusOr<graph::Graph> BuildNetwork(const std::string& name, const NetworkOptions& options) {
  absl::StatusOr<const Entry*> e = Find(name);
  if (!e.ok()) return e.status();
  if (options.batch < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("network ", name, ": batch must be >= 1, got ", options.batch));
  }
  TESSEL_ASSIGN_OR_RETURN(graph::Graph g, (*e)->build(options));
  if (!(*e)->batch_norm) return g;
  // The statistics come from one seeded input at batch 1, so they do not depend on the batch.
  graph::Graph calibrated;
  if (options.batch != 1) {
    TESSEL_ASSIGN_OR_RETURN(calibrated, (*e)->build({.batch = 1, .seed = options.seed}));
  }
  graph::Graph& one = options.batch == 1 ? g : calibrated;
  TESSEL_ASSIGN_OR_RETURN(const std::vector<runtime::NDArray> inputs,
                          NetworkInputs(name, one, options.seed));
  TESSEL_RETURN_IF_ERROR(CalibrateBatchNorm(one, inputs));
  if (options.batch == 1) return g;
  std::map<std::string, graph::ValueId> by_name;
  for (size_t i = 0; i < g.values.size(); ++i) {
    by_name[g.values[i].name] = static_cast<graph::ValueId>(i);
  }
  for (const graph::Node& node : one.nodes) {
    if (node.op != "batch_norm") continue;
    for (size_t k : {3, 4}) {
      const graph::Value& v = one.value(node.inputs[k]);
      g.values[static_cast<size_t>(by_name.at(v.name))].data = v.data;
    }
  }
  return g;
}

absl::StatusOr<std::vector<runtime::NDArray>> NetworkInputs(const std::string& name,
                                                            const graph::Graph& g, uint32_t seed) {
  absl::StatusOr<const Entry*> e = Find(name);
  if (!e.ok()) return e.status();
  std::mt19937 rng(seed);
  std::vector<runtime::NDArray> inputs;
  for (graph::ValueId id : g.inputs) {
    const graph::TensorType& t = g.type(id);
    runtime::NDArray a = runtime::NDArray::Empty(t.shape, t.dtype);
    const size_t index = inputs.size();
    const auto [low, high] = index < (*e)->input_ranges.size()
                                 ? (*e)->input_ranges[index]
                                 : std::make_pair((*e)->input_low, (*e)->input_high);
    if (t.dtype.code == kDLInt && (t.dtype.bits == 32 || t.dtype.bits == 64)) {
      // The same draws at both widths: a model exported with int64 token ids reads the same ids.
      std::uniform_int_distribution<int32_t> draw(static_cast<int32_t>(low),
                                                  static_cast<int32_t>(high) - 1);
      for (int64_t i = 0; i < a.NumElements(); ++i) {
        const int32_t id = draw(rng);
        if (t.dtype.bits == 32) {
          a.data<int32_t>()[i] = id;
        } else {
          a.data<int64_t>()[i] = id;
        }
      }
    } else if (t.dtype.code == kDLFloat && t.dtype.bits == 32) {
      UniformReal<float> draw(static_cast<float>(low), static_cast<float>(high));
      for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = draw(rng);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("network ", name, ": input '",
                                                     g.value(id).name, "' has type ", t.ToString(),
                                                     ", not one this network takes"));
    }
    inputs.push_back(std::move(a));
  }
  return inputs;
}

}  // namespace tessel::workloads::networks
