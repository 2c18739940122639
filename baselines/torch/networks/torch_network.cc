#include "baselines/torch/networks/torch_network.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <exception>
#include <functional>
#include <map>

#include "baselines/torch/networks/modules.h"
#include "baselines/torch/torch_convert.h"
#include "compiler/runtime/dltype.h"

namespace tessel::baselines {

using internal::NetworkModule;

struct TorchNetwork::Impl {
  std::string name;
  std::shared_ptr<NetworkModule> module;
  std::vector<graph::TensorType> input_types;
  std::vector<std::string> input_names;
};

namespace {

const std::map<std::string, std::function<std::shared_ptr<NetworkModule>()>>& Factories() {
  static const auto* const factories =
      new std::map<std::string, std::function<std::shared_ptr<NetworkModule>()>>{
          {"resnet18", internal::MakeResnet18Module},
          {"mobilenet_v1", internal::MakeMobilenetV1Module},
          {"dqn", internal::MakeDqnModule},
          {"dcgan", internal::MakeDcganModule},
          {"lstm_lm", internal::MakeLstmLmModule},
          {"mobilenet_v2", internal::MakeMobilenetV2Module},
          {"bert_base", internal::MakeBertBaseModule},
      };
  return *factories;
}

std::vector<int64_t> WithoutOnes(const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  for (int64_t e : shape) {
    if (e != 1) out.push_back(e);
  }
  return out;
}

// Copies the graph constant named `name` into `target` (a parameter or buffer).
absl::Status Load(const std::string& network, const std::string& name, torch::Tensor& target,
                  const std::map<std::string, const graph::Value*>& constants) {
  const auto it = constants.find(name);
  const std::vector<int64_t> want = target.sizes().vec();
  if (it == constants.end()) {
    return absl::InvalidArgumentError(absl::StrCat("torch network ", network,
                                                   ": the graph has no constant '", name, "' (",
                                                   graph::TensorType{want}.ToString(), ")"));
  }
  const graph::Value& v = *it->second;
  if (!runtime::SameDLType(v.type.dtype, graph::kFloat32) ||
      WithoutOnes(v.type.shape) != WithoutOnes(want)) {
    return absl::InvalidArgumentError(
        absl::StrCat("torch network ", network, ": constant '", name, "' is ", v.type.ToString(),
                     ", the parameter is ", graph::TensorType{want}.ToString()));
  }
  torch::NoGradGuard no_grad;
  target.copy_(internal::ToTorch(v.data).view(want));
  return absl::OkStatus();
}

}  // namespace

TorchNetwork::TorchNetwork(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchNetwork::TorchNetwork(TorchNetwork&&) noexcept = default;
TorchNetwork& TorchNetwork::operator=(TorchNetwork&&) noexcept = default;
TorchNetwork::~TorchNetwork() = default;

const std::string& TorchNetwork::name() const { return impl_->name; }

absl::StatusOr<std::vector<runtime::NDArray>> TorchNetwork::Run(
    const std::vector<runtime::NDArray>& inputs) const {
  if (inputs.size() != impl_->input_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat("torch network ", impl_->name, " takes ",
                                                   impl_->input_types.size(), " inputs, got ",
                                                   inputs.size()));
  }
  std::vector<torch::Tensor> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const graph::TensorType& want = impl_->input_types[i];
    const graph::TensorType got = inputs[i].defined()
                                      ? graph::TensorType{inputs[i].shape(), inputs[i].dtype()}
                                      : graph::TensorType{};
    if (!inputs[i].defined() || got != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "torch network ", impl_->name, ": input '", impl_->input_names[i], "' must be ",
          want.ToString(), ", got ", inputs[i].defined() ? got.ToString() : "null"));
    }
    in.push_back(internal::ToTorch(inputs[i]));
  }
  try {
    torch::InferenceMode inference;
    std::vector<runtime::NDArray> out;
    for (const torch::Tensor& t : impl_->module->Forward(in)) out.push_back(internal::FromTorch(t));
    return out;
  } catch (const std::exception& e) {
    // torch's messages go on with a backtrace after the first line.
    const std::string what = e.what();
    return absl::InternalError(absl::StrCat(
        "torch network ", impl_->name, ": libtorch failed: ", what.substr(0, what.find('\n'))));
  }
}

absl::StatusOr<TorchNetwork> MakeTorchNetwork(const std::string& name, const graph::Graph& g) {
  const auto factory = Factories().find(name);
  if (factory == Factories().end()) {
    return absl::NotFoundError(absl::StrCat("no torch network '", name, "'; the networks are ",
                                            absl::StrJoin(TorchNetworkNames(), ", ")));
  }
  auto impl = std::make_unique<TorchNetwork::Impl>();
  impl->name = name;
  impl->module = factory->second();
  impl->module->eval();
  std::map<std::string, const graph::Value*> constants;
  for (const graph::Value& v : g.values) {
    if (v.kind == graph::ValueKind::kConstant) constants[v.name] = &v;
  }
  for (auto& p : impl->module->named_parameters(/*recurse=*/true)) {
    if (absl::Status s = Load(name, p.key(), p.value(), constants); !s.ok()) return s;
  }
  for (auto& b : impl->module->named_buffers(/*recurse=*/true)) {
    if (absl::EndsWith(b.key(), "num_batches_tracked")) continue;  // training only
    if (absl::Status s = Load(name, b.key(), b.value(), constants); !s.ok()) return s;
  }
  for (graph::ValueId id : g.inputs) {
    impl->input_types.push_back(g.type(id));
    impl->input_names.push_back(g.value(id).name);
  }
  return TorchNetwork(std::move(impl));
}

std::vector<std::string> TorchNetworkNames() {
  return {"resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm", "mobilenet_v2", "bert_base"};
}

absl::Status SetTorchThreads(int n) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("torch threads must be >= 1, got ", n));
  }
  torch::set_num_threads(n);
  return absl::OkStatus();
}

int TorchThreads() { return torch::get_num_threads(); }

}  // namespace tessel::baselines
