#include "compiler/graph/passes/sink_reshapes.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <map>
#include <optional>

#include "compiler/graph/passes/rewriter.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/support/check.h"

namespace tessel::graph::passes {
namespace {

using Shape = std::vector<int64_t>;

// An old value as the new graph holds it: `base`, reshaped to `view` when has_view.
struct Mapped {
  ValueId base = kInvalid;
  bool has_view = false;
  Shape view = {};
};

Mapped Plain(ValueId v) { return Mapped{.base = v}; }

// How many trailing extents a and b share.
size_t SharedSuffix(const Shape& a, const Shape& b) {
  size_t t = 0;
  while (t < a.size() && t < b.size() && a[a.size() - 1 - t] == b[b.size() - 1 - t]) ++t;
  return t;
}

Shape Tail(const Shape& s, size_t t) { return Shape(s.end() - static_cast<long>(t), s.end()); }
Shape Head(const Shape& s, size_t t) { return Shape(s.begin(), s.end() - static_cast<long>(t)); }

// Axis `a` of a rank-r shape (negative counts from the end), or nullopt when out of range.
std::optional<int64_t> NormalAxis(int64_t a, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (a < 0) a += r;
  if (a < 0 || a >= r) return std::nullopt;
  return a;
}

class Sinker {
 public:
  explicit Sinker(const Graph& g) : g_(g), r_(g), mapped_(g.values.size()) {}

  absl::StatusOr<Graph> Run() {
    for (ValueId id : g_.inputs) mapped_[static_cast<size_t>(id)] = Plain(r_.Map(id));
    for (const Node& n : g_.nodes) {
      if (n.op == "reshape") {
        Reshape(n);
      } else if (!Sink(n)) {
        Copy(n);
      }
    }
    for (ValueId id : g_.outputs) Materialize(id);
    return r_.Finish();
  }

 private:
  const TensorType& OldType(ValueId id) const { return g_.type(id); }

  Mapped& Get(ValueId id) {
    Mapped& m = mapped_[static_cast<size_t>(id)];
    if (m.base == kInvalid) m.base = r_.Map(id);  // a constant, on first use
    return m;
  }

  const Shape& BaseShape(const Mapped& m) { return r_.builder().type(m.base).shape; }

  // The old value as a new value of its own shape: its view made a reshape node (once).
  ValueId Materialize(ValueId id) {
    Mapped& m = Get(id);
    if (!m.has_view) return m.base;
    const std::string name = g_.value(id).kind == ValueKind::kNodeOutput
                                 ? g_.nodes[static_cast<size_t>(g_.value(id).node)].name
                                 : g_.value(id).name;
    // The old name: nothing in the new graph has it (the old node was not copied).
    const ValueId v = r_.builder().Op("reshape", {m.base}, {{"newshape", m.view}}, name);
    m = Plain(v);
    r_.Bind(id, v);
    return v;
  }

  void SetView(ValueId old, ValueId base, const Shape& view) {
    Mapped& m = mapped_[static_cast<size_t>(old)];
    m.base = base;
    m.has_view = r_.builder().type(base).shape != view;
    m.view = view;
    if (!m.has_view) r_.Bind(old, base);
  }

  void Reshape(const Node& n) {
    const Mapped in = Get(n.inputs[0]);
    SetView(n.outputs[0], in.base, OldType(n.outputs[0]).shape);
  }

  void Copy(const Node& n) {
    for (ValueId id : n.inputs) Materialize(id);
    r_.Copy(n);
    for (ValueId id : n.outputs) mapped_[static_cast<size_t>(id)] = Plain(r_.Map(id));
  }

  // Operand `id` read in the frame of base shape `b` keeping the last t axes of the node's shape
  // s; kInvalid when it cannot be.
  ValueId InFrame(ValueId id, const Shape& s, const Shape& b, size_t t) {
    Mapped& m = Get(id);
    const Shape& v = OldType(id).shape;
    if (m.has_view && v.size() == s.size() && v.size() >= t && Head(v, t) == Head(s, t)) {
      Shape want = Head(b, t);
      const Shape tail = Tail(v, t);
      want.insert(want.end(), tail.begin(), tail.end());
      if (BaseShape(m) == want) return m.base;
    }
    // Leading axes (before the last t of s) all 1: drop them.
    const size_t lead = v.size() > t ? v.size() - t : 0;
    for (size_t i = 0; i < lead; ++i) {
      if (v[i] != 1) return kInvalid;
    }
    const ValueId value = Materialize(id);
    if (lead == 0) return value;
    const Shape dropped = Tail(v, t);
    if (dropped.empty()) return kInvalid;
    const Value& old = g_.value(id);
    if (old.kind == ValueKind::kConstant) {
      runtime::NDArray data = runtime::NDArray::Empty(dropped, old.data.dtype());
      std::memcpy(data.data<char>(), old.data.data<char>(),
                  static_cast<size_t>(old.data.NumBytes()));
      return r_.Constant(old.name, data);
    }
    auto [it, added] = rows_.try_emplace({id, dropped}, kInvalid);  // one per value and shape
    ValueId& rows = it->second;
    if (added) {
      rows = r_.builder().Op("reshape", {value}, {{"newshape", dropped}},
                             r_.FreshName(old.name + ".rows"));
    }
    return rows;
  }

  // Whether node n's attributes let it run in a frame keeping the last t of rank(s) axes, and
  // its attributes there (axes renumbered for rank rank_b).
  std::optional<nlohmann::json> FrameAttrs(const Node& n, size_t rank_s, size_t t, size_t rank_b) {
    nlohmann::json attrs = n.attrs;
    auto renumber = [&](int64_t a) -> std::optional<int64_t> {
      const std::optional<int64_t> axis = NormalAxis(a, rank_s);
      if (!axis || *axis < static_cast<int64_t>(rank_s - t)) return std::nullopt;
      return *axis - static_cast<int64_t>(rank_s) + static_cast<int64_t>(rank_b);
    };
    if (n.op == "softmax" || n.op == "log_softmax") {
      const std::optional<int64_t> a = renumber(n.attrs.value("axis", int64_t{-1}));
      if (!a) return std::nullopt;
      attrs["axis"] = *a;
      return attrs;
    }
    if (ops::nn::FindReduceOp(n.op) != nullptr) {
      if (!n.attrs.value("keepdims", true) || !n.attrs.contains("axes")) return std::nullopt;
      nlohmann::json axes = nlohmann::json::array();
      for (const nlohmann::json& a : n.attrs["axes"]) {
        const std::optional<int64_t> x = renumber(a.get<int64_t>());
        if (!x) return std::nullopt;
        axes.push_back(*x);
      }
      attrs["axes"] = axes;
      return attrs;
    }
    if (ops::nn::FindUnaryOp(n.op) != nullptr || ops::nn::FindBinaryOp(n.op).has_value()) {
      return attrs;
    }
    return std::nullopt;
  }

  bool Sink(const Node& n) {
    if (n.outputs.size() != 1 || n.inputs.empty()) return false;
    // The frame's shape: the output's, or a reduction's input's.
    const bool reduce = ops::nn::FindReduceOp(n.op) != nullptr;
    const Shape& s = OldType(reduce ? n.inputs[0] : n.outputs[0]).shape;
    // The frame: the base of the first operand that is a reshape to the node's whole shape.
    std::optional<Shape> b;
    for (ValueId id : n.inputs) {
      const Mapped& m = Get(id);
      if (m.has_view && OldType(id).shape == s) {
        b = BaseShape(m);
        break;
      }
    }
    if (!b) return false;
    const size_t t = SharedSuffix(s, *b);
    if (t == 0) return false;
    const std::optional<nlohmann::json> attrs = FrameAttrs(n, s.size(), t, b->size());
    if (!attrs) return false;
    // Check every operand before adding anything.
    for (ValueId id : n.inputs) {
      const Mapped& m = Get(id);
      const Shape& v = OldType(id).shape;
      const bool reshaped = m.has_view && v.size() == s.size() && Head(v, t) == Head(s, t);
      const size_t lead = v.size() > t ? v.size() - t : 0;
      bool ones = true;
      for (size_t i = 0; i < lead; ++i) ones = ones && v[i] == 1;
      if (!reshaped && !ones) return false;
      if (!reshaped && Tail(v, std::min(v.size(), t)).empty()) return false;
    }
    std::vector<ValueId> inputs;
    for (ValueId id : n.inputs) {
      const ValueId v = InFrame(id, s, *b, t);
      if (v == kInvalid) return false;  // unreachable after the checks; copied below if so
      inputs.push_back(v);
    }
    const ValueId y = r_.builder().Op(n.op, inputs, *attrs, r_.FreshName(n.name + ".rows"));
    SetView(n.outputs[0], y, OldType(n.outputs[0]).shape);
    return true;
  }

  const Graph& g_;
  Rewriter r_;
  std::vector<Mapped> mapped_;
  std::map<std::pair<ValueId, Shape>, ValueId> rows_;
};

}  // namespace

absl::StatusOr<Graph> SinkReshapes(const Graph& g) { return Sinker(g).Run(); }

}  // namespace tessel::graph::passes
