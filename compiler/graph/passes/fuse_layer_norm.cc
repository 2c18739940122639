#include "compiler/graph/passes/fuse_layer_norm.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "compiler/graph/passes/float_constants.h"
#include "compiler/graph/passes/rewriter.h"

namespace tessel::graph::passes {
namespace {

using Shape = std::vector<int64_t>;

// The one float32 value of a one-element constant.
std::optional<float> Scalar(const Graph& g, ValueId id) {
  if (!IsFloat32Constant(g, id) || g.type(id).NumElements() != 1) return std::nullopt;
  return g.value(id).data.data<float>()[0];
}

// What the matcher needs of the graph: who reads what, and which values leave it.
class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), consumers_(g.Consumers()), out_(g.values.size()) {
    for (ValueId id : g.outputs) out_[static_cast<size_t>(id)] = true;
  }

  // The node reading `id` when it is read by exactly one node (once) and is no graph output.
  const Node* SoleReader(ValueId id) const {
    const std::vector<int>& c = consumers_[static_cast<size_t>(id)];
    if (c.size() != 1 || out_[static_cast<size_t>(id)]) return nullptr;
    return &g_.nodes[static_cast<size_t>(c[0])];
  }

  // The readers of `id`, each once, when it is no graph output.
  std::vector<const Node*> Readers(ValueId id) const {
    std::vector<const Node*> out;
    if (out_[static_cast<size_t>(id)]) return out;
    for (int n : consumers_[static_cast<size_t>(id)]) {
      const Node* node = &g_.nodes[static_cast<size_t>(n)];
      if (out.empty() || out.back() != node) out.push_back(node);
    }
    return out;
  }

  // The other operand of a binary node of `op` one of whose operands is `v`.
  std::optional<ValueId> OtherOperand(const Node* n, const char* op, ValueId v) const {
    if (n == nullptr || n->op != op || n->inputs.size() != 2) return std::nullopt;
    if (n->inputs[0] == v) return n->inputs[1];
    if (n->inputs[1] == v) return n->inputs[0];
    return std::nullopt;
  }

 private:
  const Graph& g_;
  std::vector<std::vector<int>> consumers_;
  std::vector<bool> out_;
};

// The first normalized axis when `node` is a keepdims reduce_mean over trailing axes [a, rank).
std::optional<int64_t> TrailingMeanAxis(const Graph& g, const Node& node) {
  if (node.op != "reduce_mean") return std::nullopt;
  if (node.attrs.contains("keepdims") && !node.attrs.at("keepdims").get<bool>()) {
    return std::nullopt;
  }
  const int64_t rank = static_cast<int64_t>(g.type(node.inputs[0]).shape.size());
  if (!node.attrs.contains("axes") || !node.attrs.at("axes").is_array()) return std::nullopt;
  std::vector<int64_t> axes;
  for (const auto& a : node.attrs.at("axes"))
    axes.push_back(a.get<int64_t>() < 0 ? a.get<int64_t>() + rank : a.get<int64_t>());
  std::sort(axes.begin(), axes.end());
  if (axes.empty()) return std::nullopt;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return std::nullopt;
  }
  return axes.front();
}

// gamma or beta as the normalized axes' shape: a float32 constant whose broadcast along x
// changes nothing outside them.
std::optional<runtime::NDArray> AlongNormalized(const Graph& g, ValueId id, const Shape& x,
                                                int64_t axis) {
  if (!IsFloat32Constant(g, id)) return std::nullopt;
  const Shape& c = g.type(id).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  if (static_cast<int64_t>(c.size()) > rank) return std::nullopt;
  const int64_t lead = rank - static_cast<int64_t>(c.size());
  Shape normalized(x.begin() + axis, x.end());
  for (int64_t d = 0; d < static_cast<int64_t>(c.size()); ++d) {
    const int64_t xd = lead + d, extent = c[static_cast<size_t>(d)];
    if (extent == 1) continue;
    if (xd < axis || extent != x[static_cast<size_t>(xd)]) return std::nullopt;
  }
  // Broadcast the constant's data to `normalized`.
  runtime::NDArray out = runtime::NDArray::Empty(normalized, kFloat32);
  const float* src = g.value(id).data.data<float>();
  float* dst = out.data<float>();
  const int64_t n = out.NumElements();
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, at = 0, stride = 1;
    for (int64_t d = rank - 1; d >= axis; --d) {
      const int64_t i = rest % x[static_cast<size_t>(d)];
      rest /= x[static_cast<size_t>(d)];
      const int64_t cd = d - lead;
      if (cd >= 0) {
        const int64_t extent = c[static_cast<size_t>(cd)];
        if (extent != 1) at += i * stride;
        stride *= extent;
      }
    }
    dst[flat] = src[at];
  }
  return out;
}

runtime::NDArray Filled(const Shape& shape, float v) {
  runtime::NDArray a = runtime::NDArray::Empty(shape, kFloat32);
  float* p = a.data<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) p[i] = v;
  return a;
}

struct Match {
  ValueId x = kInvalid;
  int64_t axis = 0;
  double epsilon = 0;
  runtime::NDArray gamma, beta;    // of the normalized shape
  std::vector<const Node*> nodes;  // replaced, in pattern order; the last one is named after
};

std::optional<Match> MatchAt(const Graph& g, const Matcher& m, const Node& mean) {
  const std::optional<int64_t> axis = TrailingMeanAxis(g, mean);
  if (!axis) return std::nullopt;
  const ValueId x = mean.inputs[0];
  if (!IsFloat32(g.type(x))) return std::nullopt;
  const Shape& xs = g.type(x).shape;
  Match match;
  match.x = x;
  match.axis = *axis;
  // d = x - m, read by the square and the division only.
  const Node* sub = m.SoleReader(mean.outputs[0]);
  if (sub == nullptr || sub->op != "subtract" || sub->inputs[0] != x ||
      sub->inputs[1] != mean.outputs[0]) {
    return std::nullopt;
  }
  const ValueId d = sub->outputs[0];
  const std::vector<const Node*> readers = m.Readers(d);
  if (readers.size() != 2) return std::nullopt;
  const Node* square = nullptr;
  const Node* divide = nullptr;
  for (const Node* r : readers) {
    const bool squares = (r->op == "multiply" && r->inputs[0] == d && r->inputs[1] == d) ||
                         (r->op == "power" && r->inputs[0] == d && Scalar(g, r->inputs[1]) == 2.0f);
    if (squares) square = r;
    if (r->op == "divide" && r->inputs[0] == d && r->inputs[1] != d) divide = r;
  }
  if (square == nullptr || divide == nullptr) return std::nullopt;
  const Node* var = m.SoleReader(square->outputs[0]);
  if (var == nullptr || TrailingMeanAxis(g, *var) != axis) return std::nullopt;
  const Node* add = m.SoleReader(var->outputs[0]);
  const std::optional<ValueId> eps = m.OtherOperand(add, "add", var->outputs[0]);
  if (!eps || !Scalar(g, *eps) || *Scalar(g, *eps) < 0) return std::nullopt;
  match.epsilon = *Scalar(g, *eps);
  const Node* sqrt = m.SoleReader(add->outputs[0]);
  if (sqrt == nullptr || sqrt->op != "sqrt" || m.SoleReader(sqrt->outputs[0]) != divide ||
      divide->inputs[1] != sqrt->outputs[0]) {
    return std::nullopt;
  }
  match.nodes = {&mean, sub, square, var, add, sqrt, divide};
  const Shape normalized(xs.begin() + *axis, xs.end());
  match.gamma = Filled(normalized, 1.0f);
  match.beta = Filled(normalized, 0.0f);
  // The affine tail, when its constants broadcast along the normalized axes only.
  const Node* scale = m.SoleReader(divide->outputs[0]);
  const std::optional<ValueId> gamma = m.OtherOperand(scale, "multiply", divide->outputs[0]);
  std::optional<runtime::NDArray> gamma_data;
  if (gamma) gamma_data = AlongNormalized(g, *gamma, xs, *axis);
  if (!gamma_data) return match;
  match.gamma = *gamma_data;
  match.nodes.push_back(scale);
  const Node* shift = m.SoleReader(scale->outputs[0]);
  const std::optional<ValueId> beta = m.OtherOperand(shift, "add", scale->outputs[0]);
  std::optional<runtime::NDArray> beta_data;
  if (beta) beta_data = AlongNormalized(g, *beta, xs, *axis);
  if (!beta_data) return match;
  match.beta = *beta_data;
  match.nodes.push_back(shift);
  return match;
}

}  // namespace

absl::StatusOr<Graph> FuseLayerNorm(const Graph& g) {
  const Matcher m(g);
  auto index = [&](const Node* n) { return static_cast<size_t>(n - g.nodes.data()); };
  // Decide first: the layer_norm is emitted where the last node it replaces was.
  std::vector<std::optional<Match>> at_last(g.nodes.size());
  std::vector<bool> absorbed(g.nodes.size(), false);
  for (const Node& node : g.nodes) {
    if (absorbed[index(&node)]) continue;
    std::optional<Match> match = MatchAt(g, m, node);
    if (!match) continue;
    for (const Node* n : match->nodes) absorbed[index(n)] = true;
    at_last[index(match->nodes.back())] = std::move(match);
  }
  Rewriter r(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (at_last[n]) {
      const Match& match = *at_last[n];
      const ValueId gamma = r.Constant(node.name + ".gamma", match.gamma);
      const ValueId beta = r.Constant(node.name + ".beta", match.beta);
      r.Bind(node.outputs[0],
             r.builder().Op("layer_norm", {r.Map(match.x), gamma, beta},
                            {{"axis", match.axis}, {"epsilon", match.epsilon}}, node.name));
    } else if (!absorbed[n]) {
      r.Copy(node);
    }
  }
  return r.Finish();
}

}  // namespace tessel::graph::passes
