#include "compiler/graph/passes/quantize_layers.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/graph/passes/float_constants.h"
#include "compiler/graph/passes/rewriter.h"

namespace tessel::graph::passes {
namespace {

constexpr DLDataType kInt8{kDLInt, 8, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

// conv2d or dense [-> add of a per-channel constant] [-> relu].
struct LayerChain {
  const Node* layer = nullptr;
  const Node* add = nullptr;  // or nullptr
  ValueId bias = kInvalid;
  const Node* relu = nullptr;  // or nullptr
  ValueId end = kInvalid;      // the chain's last value
};

const Node* OnlyReader(const Graph& g, ValueId id, const std::vector<std::vector<int>>& consumers,
                       const std::vector<bool>& is_output) {
  const std::vector<int>& readers = consumers[static_cast<size_t>(id)];
  if (readers.size() != 1 || is_output[static_cast<size_t>(id)]) return nullptr;
  return &g.nodes[static_cast<size_t>(readers[0])];
}

// A constant bias per output channel of `layer` (its output's axis 1), in the shapes numpy
// broadcasting adds it in.
bool IsChannelBias(const Graph& g, ValueId id, const Node& layer) {
  if (!IsFloat32Constant(g, id)) return false;
  const int64_t c = g.type(layer.outputs[0]).shape[1];
  const std::vector<int64_t>& s = g.type(id).shape;
  if (layer.op == "dense") return s == std::vector<int64_t>{c} || s == std::vector<int64_t>{1, c};
  return s == std::vector<int64_t>{c, 1, 1} || s == std::vector<int64_t>{1, c, 1, 1};
}

bool PlainConv(const Graph& g, const Node& conv) {
  if (conv.op != "conv2d" || conv.inputs.size() != 2) return false;
  if (!IsFloat32(g.type(conv.inputs[0])) || !IsFloat32Constant(g, conv.inputs[1])) return false;
  const nlohmann::json& a = conv.attrs;
  if (a.contains("groups") && a.at("groups").get<int64_t>() != 1) return false;
  if (a.contains("dilation") && a.at("dilation") != nlohmann::json({1, 1})) return false;
  return !a.contains("layout");  // logical NCHW only (the layout pass runs later)
}

// dense(x, W) or dense(x, W, b), W and b constants.
bool PlainDense(const Graph& g, const Node& dense) {
  if (dense.op != "dense") return false;
  if (!IsFloat32(g.type(dense.inputs[0])) || !IsFloat32Constant(g, dense.inputs[1])) return false;
  return dense.inputs.size() == 2 || IsChannelBias(g, dense.inputs[2], dense);
}

std::optional<LayerChain> MatchChain(const Graph& g, const Node& layer,
                                     const std::vector<std::vector<int>>& consumers,
                                     const std::vector<bool>& is_output) {
  if (!PlainConv(g, layer) && !PlainDense(g, layer)) return std::nullopt;
  LayerChain c{.layer = &layer, .end = layer.outputs[0]};
  if (layer.inputs.size() == 3) c.bias = layer.inputs[2];
  if (const Node* n = OnlyReader(g, c.end, consumers, is_output);
      n && n->op == "add" && c.bias == kInvalid) {
    const ValueId other = n->inputs[0] == c.end ? n->inputs[1] : n->inputs[0];
    if (n->inputs[0] != n->inputs[1] && IsChannelBias(g, other, layer)) {
      c.add = n;
      c.bias = other;
      c.end = n->outputs[0];
    }
  }
  if (const Node* n = OnlyReader(g, c.end, consumers, is_output); n && n->op == "relu") {
    c.relu = n;
    c.end = n->outputs[0];
  }
  return c;
}

double ScaleFor(double max_abs) { return max_abs > 0 ? max_abs / 127 : 1.0; }

runtime::NDArray QuantizeWeight(const runtime::NDArray& w, double& scale) {
  const float* in = w.data<float>();
  const int64_t n = w.NumElements();
  double largest = 0;
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(static_cast<double>(in[i])));
  scale = ScaleFor(largest);
  runtime::NDArray q = runtime::NDArray::Empty(w.shape(), kInt8);
  int8_t* out = q.data<int8_t>();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<int8_t>(std::clamp(std::round(in[i] / scale), -127.0, 127.0));
  }
  return q;
}

// The least k in [0, 31] with max_abs / (unit * 2^k) <= 127.
int ShiftFor(double max_abs, double unit) {
  int k = 0;
  while (k < 31 && max_abs / std::ldexp(unit, k) > 127) ++k;
  return k;
}

runtime::NDArray QuantizeBias(const Graph& g, ValueId bias, int64_t oc, double unit, int shift) {
  runtime::NDArray q = runtime::NDArray::Empty({oc}, kInt32);
  int32_t* out = q.data<int32_t>();
  const float* in = bias == kInvalid ? nullptr : g.value(bias).data.data<float>();
  const double half = shift > 0 ? std::ldexp(1.0, shift - 1) : 0;
  constexpr double kLimit = 1 << 30;  // far from int32's ends, so sums with it do not wrap
  for (int64_t c = 0; c < oc; ++c) {
    const double b = in ? std::round(in[c] / unit) : 0;
    out[c] = static_cast<int32_t>(std::clamp(b + half, -kLimit, kLimit));
  }
  return q;
}

}  // namespace

std::string Int8OpOf(const std::string& op) {
  if (op == "conv2d") return "conv2d_int8";
  if (op == "dense") return "dense_int8";
  return "";
}

bool IsQuantizableLayer(const std::string& op) {
  return !Int8OpOf(op).empty() || op == "conv2d_int8" || op == "dense_int8";
}

absl::StatusOr<Graph> QuantizeLayers(const Graph& g, const std::vector<double>& max_abs,
                                     const QuantizeLayersOptions& options) {
  if (max_abs.size() != g.values.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantization: ", max_abs.size(), " calibrated ranges for ", g.values.size(), " values"));
  }
  const std::vector<std::vector<int>> consumers = g.Consumers();
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId v : g.outputs) is_output[static_cast<size_t>(v)] = true;
  std::vector<bool> in_chain(g.nodes.size(), false);
  auto index_of = [&](const Node* n) { return static_cast<size_t>(n - g.nodes.data()); };

  Rewriter r(g);
  absl::flat_hash_map<ValueId, ValueId> quantized;  // old float value -> new int8 value
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    if (in_chain[i]) continue;
    std::optional<LayerChain> c;
    if (!Int8OpOf(node.op).empty() && options.eligible && options.eligible(g, node)) {
      c = MatchChain(g, node, consumers, is_output);
    }
    if (!c) {
      r.Copy(node);
      continue;
    }
    if (c->add) in_chain[index_of(c->add)] = true;
    if (c->relu) in_chain[index_of(c->relu)] = true;
    Builder& b = r.builder();
    const ValueId x = node.inputs[0];
    const double s_x = ScaleFor(max_abs[static_cast<size_t>(x)]);
    auto [it, fresh] = quantized.try_emplace(x, kInvalid);
    if (fresh) {
      it->second = b.Op("quantize", {r.Map(x)}, {{"scale", s_x}},
                        r.FreshName(absl::StrCat(g.value(x).name, ".q")));
    }
    double s_w = 1;
    const ValueId w = r.Constant(absl::StrCat(g.value(node.inputs[1]).name, ".int8"),
                                 QuantizeWeight(g.value(node.inputs[1]).data, s_w));
    const double unit = s_x * s_w;
    const int shift = ShiftFor(max_abs[static_cast<size_t>(c->end)], unit);
    const int64_t oc = g.type(node.outputs[0]).shape[1];
    const ValueId bias = r.Constant(absl::StrCat(node.name, ".bias.int32"),
                                    QuantizeBias(g, c->bias, oc, unit, shift));
    nlohmann::json attrs = node.attrs;
    attrs["shift"] = shift;
    attrs["relu"] = c->relu != nullptr;
    const ValueId y = b.Op(Int8OpOf(node.op), {it->second, w, bias}, attrs,
                           r.FreshName(absl::StrCat(node.name, ".int8")));
    r.Bind(c->end, b.Op("dequantize", {y}, {{"scale", std::ldexp(unit, shift)}},
                        r.FreshName(absl::StrCat(g.value(c->end).name, ".dq"))));
  }
  return r.Finish();
}

int CountInt8Layers(const Graph& g) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return n.op == "conv2d_int8" || n.op == "dense_int8";
  }));
}

}  // namespace tessel::graph::passes
