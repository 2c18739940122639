#include "compiler/graph/passes/fold_batch_norm.h"

#include <cmath>
#include <optional>
#include <vector>

#include "compiler/graph/passes/float_constants.h"
#include "compiler/graph/passes/rewriter.h"

namespace tessel::graph::passes {
namespace {

// The node producing a value, or nullptr for inputs and constants.
const Node* Producer(const Graph& g, ValueId id) {
  const Value& v = g.value(id);
  return v.kind == ValueKind::kNodeOutput ? &g.nodes[static_cast<size_t>(v.node)] : nullptr;
}

// y = x * scale + shift per channel: a batch_norm with constant statistics.
struct ChannelAffine {
  std::vector<double> scale, shift;
};

std::optional<ChannelAffine> ConstantStatistics(const Graph& g, const Node& bn) {
  for (size_t i = 1; i < bn.inputs.size(); ++i) {
    if (!IsFloat32Constant(g, bn.inputs[i])) return std::nullopt;
  }
  if (!IsFloat32(g.type(bn.inputs[0]))) return std::nullopt;
  const double epsilon = bn.attrs.contains("epsilon") ? bn.attrs.at("epsilon").get<double>() : 1e-5;
  auto data = [&](int i) { return g.value(bn.inputs[static_cast<size_t>(i)]).data.data<float>(); };
  const float *gamma = data(1), *beta = data(2), *mean = data(3), *var = data(4);
  const int64_t c = g.type(bn.inputs[1]).NumElements();
  ChannelAffine a;
  for (int64_t k = 0; k < c; ++k) {
    const double s = gamma[k] / std::sqrt(static_cast<double>(var[k]) + epsilon);
    a.scale.push_back(s);
    a.shift.push_back(beta[k] - mean[k] * s);
  }
  return a;
}

// conv2d [-> add of a per-channel constant] -> batch_norm.
struct ConvMatch {
  const Node* conv = nullptr;
  const Node* add = nullptr;  // the bias add, or nullptr
  ValueId bias = kInvalid;
};

bool IsChannelBias(const Graph& g, ValueId id, int64_t c) {
  if (!IsFloat32Constant(g, id)) return false;
  const std::vector<int64_t>& s = g.type(id).shape;
  return s == std::vector<int64_t>{c, 1, 1} || s == std::vector<int64_t>{1, c, 1, 1};
}

std::optional<ConvMatch> MatchConv(const Graph& g, const Node& bn,
                                   const std::vector<std::vector<int>>& consumers,
                                   const std::vector<bool>& is_output) {
  // Only one reader, and not an output: the value disappears.
  auto private_value = [&](ValueId id) {
    return consumers[static_cast<size_t>(id)].size() == 1 && !is_output[static_cast<size_t>(id)];
  };
  const int64_t c = g.type(bn.inputs[0]).shape[1];
  ConvMatch m;
  ValueId x = bn.inputs[0];
  const Node* p = Producer(g, x);
  if (p == nullptr || !private_value(x)) return std::nullopt;
  if (p->op == "add") {
    for (int side = 0; side < 2; ++side) {
      const ValueId other = p->inputs[static_cast<size_t>(1 - side)];
      if (IsChannelBias(g, p->inputs[static_cast<size_t>(side)], c) && Producer(g, other) &&
          g.type(other) == g.type(x)) {
        m.add = p;
        m.bias = p->inputs[static_cast<size_t>(side)];
        x = other;
        break;
      }
    }
    if (m.add == nullptr || !private_value(x)) return std::nullopt;
    p = Producer(g, x);
  }
  if (p->op != "conv2d" || !IsFloat32Constant(g, p->inputs[1])) return std::nullopt;
  m.conv = p;
  return m;
}

runtime::NDArray ChannelConstant(const std::vector<double>& v) {
  const int64_t c = static_cast<int64_t>(v.size());
  runtime::NDArray a = runtime::NDArray::Empty({c, 1, 1}, kFloat32);
  for (int64_t k = 0; k < c; ++k)
    a.data<float>()[k] = static_cast<float>(v[static_cast<size_t>(k)]);
  return a;
}

void EmitConvFold(Rewriter& r, const Node& bn, const ChannelAffine& a, const ConvMatch& m) {
  const Graph& g = r.old();
  const runtime::NDArray& w = g.value(m.conv->inputs[1]).data;
  runtime::NDArray scaled = runtime::NDArray::Empty(w.shape(), kFloat32);
  const int64_t per_channel = w.NumElements() / w.shape()[0];
  for (int64_t i = 0; i < w.NumElements(); ++i) {
    const double s = a.scale[static_cast<size_t>(i / per_channel)];
    scaled.data<float>()[i] = static_cast<float>(w.data<float>()[i] * s);
  }
  std::vector<double> bias = a.shift;
  if (m.add != nullptr) {
    const float* b = g.value(m.bias).data.data<float>();
    for (size_t k = 0; k < bias.size(); ++k) bias[k] += b[k] * a.scale[k];
  }
  Builder& b = r.builder();
  ValueId y = b.Op("conv2d", {r.Map(m.conv->inputs[0]), r.Constant(bn.name + ".weight", scaled)},
                   m.conv->attrs, m.conv->name);
  y = b.Op("add", {y, r.Constant(bn.name + ".bias", ChannelConstant(bias))}, {}, bn.name);
  r.Bind(bn.outputs[0], y);
}

void EmitAffine(Rewriter& r, const Node& bn, const ChannelAffine& a) {
  Builder& b = r.builder();
  ValueId y = b.Op("multiply",
                   {r.Map(bn.inputs[0]), r.Constant(bn.name + ".scale", ChannelConstant(a.scale))},
                   {}, r.FreshName(bn.name + ".mul"));
  y = b.Op("add", {y, r.Constant(bn.name + ".shift", ChannelConstant(a.shift))}, {}, bn.name);
  r.Bind(bn.outputs[0], y);
}

}  // namespace

absl::StatusOr<Graph> FoldBatchNorm(const Graph& g) {
  const std::vector<std::vector<int>> consumers = g.Consumers();
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId id : g.outputs) is_output[static_cast<size_t>(id)] = true;

  // Decide first: a matched conv and bias add are emitted where their batch_norm is.
  std::vector<std::optional<ChannelAffine>> affine(g.nodes.size());
  std::vector<std::optional<ConvMatch>> conv(g.nodes.size());
  std::vector<bool> absorbed(g.nodes.size(), false);
  auto index = [&](const Node* n) { return static_cast<size_t>(n - g.nodes.data()); };
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.op != "batch_norm") continue;
    affine[n] = ConstantStatistics(g, node);
    if (!affine[n]) continue;
    conv[n] = MatchConv(g, node, consumers, is_output);
    if (!conv[n]) continue;
    absorbed[index(conv[n]->conv)] = true;
    if (conv[n]->add != nullptr) absorbed[index(conv[n]->add)] = true;
  }

  Rewriter r(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (absorbed[n]) continue;
    if (conv[n]) {
      EmitConvFold(r, node, *affine[n], *conv[n]);
    } else if (affine[n]) {
      EmitAffine(r, node, *affine[n]);
    } else {
      r.Copy(node);
    }
  }
  return r.Finish();
}

}  // namespace tessel::graph::passes
