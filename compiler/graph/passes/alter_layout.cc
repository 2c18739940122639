#include "compiler/graph/passes/alter_layout.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/strings/ascii.h>
#include <absl/strings/str_cat.h>

#include <tuple>

#include "compiler/graph/op_registry.h"
#include "compiler/graph/passes/rewriter.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::passes {
namespace {

// Where the contents of an old value are in the new graph: the tensor it stands for (its own
// contents; for the output of a layout_transform to NCHW{b}c, its NCHW form) held by the new
// value `value` in layout `block` (0: as it is).
struct Held {
  ValueId value = kInvalid;
  int64_t block = 0;
};

bool IsLayoutFree(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "relu",     "sigmoid",  "tanh",   "leaky_relu", "clip",   "add",
      "subtract", "multiply", "divide", "maximum",    "minimum"};
  return kOps->contains(op);
}

std::string Suffix(int64_t block) { return absl::AsciiStrToLower(LayoutName(block)); }

class LayoutRewrite {
 public:
  LayoutRewrite(const Graph& g, const LayoutChooser& choose)
      : g_(g),
        choose_(choose),
        r_(g),
        held_(g.values.size()),
        declared_(g.values.size(), 0),
        is_output_(g.values.size(), false) {
    for (ValueId id : g.outputs) is_output_[static_cast<size_t>(id)] = true;
  }

  absl::StatusOr<Graph> Run() {
    for (const Node& n : g_.nodes) {
      std::optional<NodeLayout> layout;
      TESSEL_ASSIGN_OR_RETURN(const OpDef* def, FindOpDef(n.op));
      TESSEL_ASSIGN_OR_RETURN(NodeLayout has, NodeLayoutOf(n.attrs));
      if (def->blocked_data && !has.blocked()) {
        layout = choose_(g_, n, n.inputs.empty() ? 0 : HeldOf(n.inputs[0]).block);
      }
      if (layout && layout->blocked()) {
        TESSEL_RETURN_IF_ERROR(Chosen(n, *def, *layout));
      } else if (layout.has_value() || !(Transform(n) || LayoutFree(n))) {
        Plain(n);
      }
      if (!r_.builder().status().ok()) return r_.builder().status();
    }
    for (ValueId id : g_.outputs) {
      r_.Bind(id, In(id));
    }
    return r_.Finish();
  }

 private:
  Held HeldOf(ValueId old) {
    const Held& h = held_[static_cast<size_t>(old)];
    if (h.value != kInvalid) return h;
    return {r_.Map(old), 0};  // an input or a constant
  }

  // The new value holding h's tensor in layout `to`.
  ValueId Convert(const Held& h, int64_t to, const std::string& base, bool own_name = false) {
    if (h.block == to) return h.value;
    auto [it, inserted] = converted_.try_emplace(std::tuple{h.value, h.block, to}, kInvalid);
    if (inserted) {
      const std::string name = own_name ? base : r_.FreshName(absl::StrCat(base, "_", Suffix(to)));
      it->second = r_.builder().Op("layout_transform", {h.value},
                                   {{"src", LayoutName(h.block)}, {"dst", LayoutName(to)}}, name);
    }
    return it->second;
  }

  // The new value for old value `old` as a reader of `g` sees it.
  ValueId In(ValueId old) { return In(old, declared_[static_cast<size_t>(old)]); }
  // A graph output converted to its own layout takes its name (NameFor left it free).
  ValueId In(ValueId old, int64_t block) {
    const size_t i = static_cast<size_t>(old);
    return Convert(HeldOf(old), block, g_.value(old).name, is_output_[i] && block == declared_[i]);
  }

  void Bind(ValueId old, ValueId now, int64_t block) {
    held_[static_cast<size_t>(old)] = {now, block};
  }

  // A node whose output is held in `block`: its own name, unless that output is a graph output
  // held blocked (the transform back takes the name then).
  std::string NameFor(const Node& n, int64_t block) {
    if (block == 0 || !is_output_[static_cast<size_t>(n.outputs[0])]) return n.name;
    return r_.FreshName(absl::StrCat(n.name, "_", Suffix(block)));
  }

  void Plain(const Node& n) {
    std::vector<ValueId> inputs;
    for (ValueId id : n.inputs) inputs.push_back(In(id));
    std::vector<ValueId> outputs = r_.builder().Add(n.op, inputs, n.attrs, n.name);
    for (size_t o = 0; o < n.outputs.size() && o < outputs.size(); ++o) {
      Bind(n.outputs[o], outputs[o], 0);
    }
  }

  absl::Status Chosen(const Node& n, const OpDef& def, const NodeLayout& layout) {
    auto error = [&](const std::string& what) {
      return absl::InvalidArgumentError(absl::StrCat("layout of node '", n.name, "' (", n.op, ", ",
                                                     LayoutName(layout.in_block), " -> ",
                                                     LayoutName(layout.out_block), "): ", what));
    };
    if (!def.blocked_data) return error("the operator computes in NCHW only");
    const ValueId data = n.inputs.at(0), out = n.outputs.at(0);
    if (declared_[static_cast<size_t>(data)] != 0) return error("its data input is blocked in g");
    for (const auto& [type, block] :
         {std::pair{g_.type(data), layout.in_block}, std::pair{g_.type(out), layout.out_block}}) {
      if (block == 0) continue;
      if (absl::StatusOr<TensorType> t = BlockedType(type, block); !t.ok()) {
        return error(std::string(t.status().message()));
      }
    }
    std::vector<ValueId> inputs = {In(data, layout.in_block)};
    for (size_t i = 1; i < n.inputs.size(); ++i) inputs.push_back(In(n.inputs[i]));
    Bind(out,
         r_.builder().Op(n.op, inputs, WithNodeLayout(n.attrs, layout),
                         NameFor(n, layout.out_block)),
         layout.out_block);
    return absl::OkStatus();
  }

  // A layout_transform of g between NCHW and NCHW{b}c: a change of the held layout, no node.
  bool Transform(const Node& n) {
    if (n.op != "layout_transform" || n.inputs.size() != 1) return false;
    if (!n.attrs.contains("src") || !n.attrs.contains("dst") || !n.attrs["src"].is_string() ||
        !n.attrs["dst"].is_string()) {
      return false;
    }
    absl::StatusOr<int64_t> src = ParseLayoutName(n.attrs["src"].get<std::string>());
    absl::StatusOr<int64_t> dst = ParseLayoutName(n.attrs["dst"].get<std::string>());
    const ValueId in = n.inputs[0];
    if (!src.ok() || !dst.ok() || g_.type(in).shape.size() != (*src == 0 ? 4u : 5u)) return false;
    const int64_t declared = declared_[static_cast<size_t>(in)];
    Held h = HeldOf(in);
    if (declared == 0 && *src > 0) {
      h = {In(in), *src};  // a blocked tensor of g's own: its NCHW form, held in src
    } else if (declared != *src) {
      return false;
    }
    held_[static_cast<size_t>(n.outputs[0])] = h;
    declared_[static_cast<size_t>(n.outputs[0])] = *dst;
    return true;
  }

  // How input `id` of a layout-free node with 4-d output `out` reads in block k, as a numpy
  // broadcast onto the blocked output [n, c / k, h, w, k]: its shape aligned to 4-d, (a0, a1,
  // a2, a3), becomes (a0, a1 / k, a2, a3, k) when it varies along the channels (a1 = c) and
  // (a0, 1, a2, a3, 1) when it does not (a1 = 1), the leading ones alignment added dropped
  // again. A single element stays as it is; a 4-d input varying along channels and a spatial
  // axis is converted (layout_transform); otherwise the bytes are the same and the input is
  // reshaped (a constant here, anything else by a reshape node). nullopt: no such reading.
  struct Reading {
    enum class Kind { kAsIs, kConvert, kReshape } kind;
    std::vector<int64_t> shape;  // kReshape
  };
  std::optional<Reading> ReadInBlock(ValueId id, const TensorType& out, int64_t k) {
    const TensorType& t = g_.type(id);
    const size_t rank = t.shape.size();
    if (declared_[static_cast<size_t>(id)] != 0 || rank > 4) return std::nullopt;
    if (t.NumElements() == 1) return Reading{Reading::Kind::kAsIs, {}};
    std::vector<int64_t> a(4 - rank, 1);
    a.insert(a.end(), t.shape.begin(), t.shape.end());
    const int64_t c = out.shape[1];
    if (a[1] == c && (a[2] > 1 || a[3] > 1)) {
      if (rank != 4) return std::nullopt;
      return Reading{Reading::Kind::kConvert, {}};
    }
    if (a[1] != c && a[1] != 1) return std::nullopt;
    std::vector<int64_t> shape = {a[0], a[1] == c ? c / k : 1, a[2], a[3], a[1] == c ? k : 1};
    shape.erase(shape.begin(), shape.begin() + static_cast<long>(4 - rank));
    return Reading{Reading::Kind::kReshape, std::move(shape)};
  }

  ValueId InBlock(ValueId id, const Reading& reading, int64_t k) {
    switch (reading.kind) {
      case Reading::Kind::kAsIs:
        return In(id);
      case Reading::Kind::kConvert:
        return In(id, k);
      case Reading::Kind::kReshape:
        break;
    }
    auto [it, inserted] = reshaped_.try_emplace(std::pair{id, k}, kInvalid);
    if (!inserted) return it->second;
    const Value& v = g_.value(id);
    const std::string name = absl::StrCat(v.name, "_", Suffix(k));
    if (v.kind == ValueKind::kConstant) {
      runtime::NDArray data = runtime::NDArray::Empty(reading.shape, v.data.dtype());
      TESSEL_CHECK(
          data.CopyFromBytes(v.data.data<char>(), static_cast<size_t>(v.data.NumBytes())).ok());
      it->second = r_.Constant(name, data);
    } else {
      it->second =
          r_.builder().Op("reshape", {In(id)}, {{"newshape", reading.shape}}, r_.FreshName(name));
    }
    return it->second;
  }

  bool LayoutFree(const Node& n) {
    if (!IsLayoutFree(n.op) || n.outputs.size() != 1) return false;
    const TensorType& out = g_.type(n.outputs[0]);
    if (out.shape.size() != 4) return false;
    int64_t k = 0;
    for (ValueId id : n.inputs) {
      if (g_.type(id) == out && declared_[static_cast<size_t>(id)] == 0 && HeldOf(id).block > 0) {
        k = HeldOf(id).block;
        break;
      }
    }
    if (k == 0) return false;
    // Every input first: a node that cannot follow adds nothing.
    std::vector<Reading> readings;
    for (ValueId id : n.inputs) {
      std::optional<Reading> reading = ReadInBlock(id, out, k);
      if (!reading) return false;
      readings.push_back(*std::move(reading));
    }
    std::vector<ValueId> inputs;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      inputs.push_back(InBlock(n.inputs[i], readings[i], k));
    }
    Bind(n.outputs[0], r_.builder().Op(n.op, inputs, n.attrs, NameFor(n, k)), k);
    return true;
  }

  const Graph& g_;
  const LayoutChooser& choose_;
  Rewriter r_;
  std::vector<Held> held_;         // per old node output, once its node is done
  std::vector<int64_t> declared_;  // per old value: the block g's own layout_transforms give it
  std::vector<bool> is_output_;
  absl::flat_hash_map<std::tuple<ValueId, int64_t, int64_t>, ValueId> converted_;
  absl::flat_hash_map<std::pair<ValueId, int64_t>, ValueId> reshaped_;
};

}  // namespace

absl::StatusOr<Graph> AlterLayout(const Graph& g, const LayoutChooser& choose) {
  TESSEL_RETURN_IF_ERROR(Verify(g));
  return LayoutRewrite(g, choose).Run();
}

int CountLayoutTransforms(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == "layout_transform";
  return n;
}

}  // namespace tessel::graph::passes
