#include "compiler/graph/onnx/importer.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/tensor_proto.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using ::onnx::AttributeProto;
using runtime::NDArray;

// ONNX's inferred type as text and, when every extent is known, as a TensorType.
struct InferredType {
  bool known = false;
  TensorType type;
  std::string text;
};

InferredType Inferred(const ::onnx::TypeProto* t) {
  InferredType out;
  if (t == nullptr || !t->has_tensor_type()) return out;
  const auto& tt = t->tensor_type();
  std::vector<std::string> dims;
  bool static_shape = tt.has_shape();
  for (const auto& d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      dims.push_back(absl::StrCat(d.dim_value()));
      out.type.shape.push_back(d.dim_value());
    } else {
      dims.push_back("?");
      static_shape = false;
    }
  }
  out.text = absl::StrCat(OnnxTypeName(tt.elem_type()), "[", absl::StrJoin(dims, ", "), "]");
  absl::StatusOr<DLDataType> dtype = DLTypeOfOnnx(tt.elem_type());
  out.known = static_shape && dtype.ok();
  if (dtype.ok()) out.type.dtype = *dtype;
  return out;
}

// The graph name of each ONNX node: its own name when present and unique among the nodes, else
// "<op_type>_<index>".
std::vector<std::string> NodeNames(const ::onnx::GraphProto& g) {
  std::map<std::string, int> count;
  for (const auto& n : g.node()) ++count[n.name()];
  std::vector<std::string> names;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    names.push_back(!n.name().empty() && count[n.name()] == 1 ? n.name()
                                                              : absl::StrCat(n.op_type(), "_", i));
  }
  return names;
}

}  // namespace

std::string ImportState::UniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; names_.count(name) > 0; ++k) name = absl::StrCat(base, "_", k);
  names_.insert(name);
  return name;
}

ValueId ImportState::Materialize(const std::string& onnx_name, Operand& operand) {
  if (operand.value == kInvalid && operand.constant.defined()) {
    if (operand.graph_name.empty()) operand.graph_name = UniqueName(onnx_name);
    operand.value = builder.Constant(operand.graph_name, operand.constant);
  }
  return operand.value;
}

// ---- NodeContext: inputs ----

std::string NodeContext::InputName(int i) const {
  return i >= 0 && i < node_.input_size() ? node_.input(i) : std::string();
}

Operand& NodeContext::InputOperand(int i) const {
  const std::string name = InputName(i);
  auto it = name.empty() ? state_.values.end() : state_.values.find(name);
  if (it != state_.values.end()) return it->second;
  // Converters read optional inputs after HasInput; anything else reads as absent, and the
  // builder passes kInvalid on without adding a node (ConvertNode then reports the gap).
  absent_ = Operand();
  return absent_;
}

bool NodeContext::HasInput(int i) const {
  const std::string name = InputName(i);
  return !name.empty() && state_.values.count(name) > 0;
}

bool NodeContext::IsConstant(int i) const { return InputOperand(i).constant.defined(); }

absl::StatusOr<NDArray> NodeContext::Constant(int i, const std::string& what) const {
  const Operand& operand = InputOperand(i);
  if (!HasInput(i)) return Invalid(absl::StrCat("input ", i, " (", what, ") is missing"));
  if (!operand.constant.defined()) {
    return Unsupported(absl::StrCat("input ", i, " ('", InputName(i), "', ", what,
                                    ") must be known at import (a constant), but it is computed"));
  }
  return operand.constant;
}

TensorType NodeContext::Type(int i) const {
  const Operand& operand = InputOperand(i);
  if (operand.constant.defined()) return {operand.constant.shape(), operand.constant.dtype()};
  return state_.builder.type(operand.value);
}

absl::StatusOr<ValueId> NodeContext::Value(int i) {
  if (!HasInput(i)) return Invalid(absl::StrCat("input ", i, " is missing"));
  return state_.Materialize(InputName(i), InputOperand(i));
}

absl::StatusOr<ValueId> NodeContext::Float32(int i) {
  if (!HasInput(i)) return Invalid(absl::StrCat("input ", i, " is missing"));
  const TensorType t = Type(i);
  if (!runtime::SameDLType(t.dtype, kFloat32)) {
    return Unsupported(absl::StrCat("input ", i, " ('", InputName(i), "') has element type ",
                                    runtime::DLTypeToString(t.dtype),
                                    "; Tessel's operators compute float32"));
  }
  return state_.Materialize(InputName(i), InputOperand(i));
}

bool KeptElementType(DLDataType t) {
  return runtime::SameDLType(t, DLDataType{kDLFloat, 64, 1}) ||
         runtime::SameDLType(t, DLDataType{kDLInt, 32, 1}) ||
         runtime::SameDLType(t, DLDataType{kDLInt, 64, 1});
}

absl::StatusOr<ValueId> NodeContext::KeptTypeValue(int i) {
  return HasInput(i) && KeptElementType(Type(i).dtype) ? Value(i) : Float32(i);
}

absl::StatusOr<NDArray> NodeContext::Float32Constant(int i) {
  if (!HasInput(i) || !IsConstant(i)) return NDArray();
  const NDArray& c = InputOperand(i).constant;
  if (!runtime::SameDLType(c.dtype(), kFloat32)) {
    return Unsupported(absl::StrCat("input ", i, " ('", InputName(i), "') has element type ",
                                    runtime::DLTypeToString(c.dtype()),
                                    "; Tessel's operators compute float32"));
  }
  return c;
}

absl::StatusOr<ValueId> NodeContext::Float32Reshaped(int i, const std::vector<int64_t>& shape,
                                                     const std::string& role) {
  TESSEL_ASSIGN_OR_RETURN(const NDArray known, Float32Constant(i));
  if (known.defined()) {
    absl::StatusOr<NDArray> reshaped = Reshaped(known, shape, budget());
    if (!reshaped.ok()) return Annotate(reshaped.status());
    return NewConstant(role, *std::move(reshaped));
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId v, Float32(i));
  return Reshape(v, shape, role);
}

// ---- outputs ----

bool NodeContext::OutputUsed(int i) const {
  return i < node_.output_size() && !node_.output(i).empty() &&
         state_.consumed.count(node_.output(i)) > 0;
}

void NodeContext::SetOutput(int i, ValueId v) {
  if (i >= node_.output_size() || node_.output(i).empty()) return;
  state_.values[node_.output(i)] = Operand{NDArray(), v, ""};
}

void NodeContext::SetOutput(int i, NDArray constant) {
  if (i >= node_.output_size() || node_.output(i).empty()) return;
  state_.values[node_.output(i)] = Operand{std::move(constant), kInvalid, ""};
}

void NodeContext::Forward(int out, int in) {
  if (out >= node_.output_size() || node_.output(out).empty()) return;
  Operand operand = InputOperand(in);
  operand.graph_name.clear();  // the same graph value, or a constant of its own when read
  state_.values[node_.output(out)] = operand;
}

// ---- attributes ----

const AttributeProto* NodeContext::Attr(const std::string& name) const {
  for (const AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

absl::Status NodeContext::WrongAttrType(const std::string& name, const char* expected) const {
  return Invalid(absl::StrCat("attribute '", name, "' must be ", expected));
}

absl::StatusOr<int64_t> NodeContext::Int(const std::string& name, int64_t fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::INT) return WrongAttrType(name, "an int");
  return a->i();
}

absl::StatusOr<float> NodeContext::Float(const std::string& name, float fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::FLOAT) return WrongAttrType(name, "a float");
  return a->f();
}

absl::StatusOr<std::string> NodeContext::String(const std::string& name,
                                                const std::string& fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::STRING) return WrongAttrType(name, "a string");
  return a->s();
}

absl::StatusOr<std::vector<int64_t>> NodeContext::Ints(const std::string& name,
                                                       std::vector<int64_t> fallback) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != AttributeProto::INTS) return WrongAttrType(name, "a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

absl::StatusOr<std::vector<float>> NodeContext::Floats(const std::string& name) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return std::vector<float>();
  if (a->type() != AttributeProto::FLOATS) return WrongAttrType(name, "a list of floats");
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

absl::StatusOr<NDArray> NodeContext::TensorAttr(const std::string& name) const {
  const AttributeProto* a = Attr(name);
  if (a == nullptr) return Invalid(absl::StrCat("attribute '", name, "' is missing"));
  if (a->type() != AttributeProto::TENSOR) return WrongAttrType(name, "a tensor");
  absl::StatusOr<NDArray> t = TensorFromProto(a->t(), absl::StrCat("attribute '", name, "'"));
  if (!t.ok() && t.status().code() == absl::StatusCode::kUnimplemented) {
    return Unsupported(std::string(t.status().message()));
  }
  if (!t.ok()) return Invalid(std::string(t.status().message()));
  return t;
}

// ---- building ----

std::vector<ValueId> NodeContext::OpN(const std::string& op, const std::vector<ValueId>& inputs,
                                      nlohmann::json attrs, const std::string& role) {
  std::string node_name;
  if (role.empty() && !named_node_added_) {
    node_name = name_;  // reserved when the context was made
    named_node_added_ = true;
  } else {
    node_name = state_.UniqueName(absl::StrCat(name_, "/", role.empty() ? op : role));
  }
  return state_.builder.Add(op, inputs, std::move(attrs), node_name);
}

ValueId NodeContext::Op(const std::string& op, const std::vector<ValueId>& inputs,
                        nlohmann::json attrs, const std::string& role) {
  std::vector<ValueId> out = OpN(op, inputs, std::move(attrs), role);
  return out.size() == 1 ? out[0] : kInvalid;
}

ValueId NodeContext::Concat(const std::vector<ValueId>& values, int64_t axis,
                            const std::string& role) {
  if (values.size() == 1) return values[0];
  if (values.size() <= kMaxConcatInputs) {
    return Op("concatenate", values, {{"axis", axis}}, role);
  }
  // Groups of kMaxConcatInputs, joined again until one value is left.
  std::vector<ValueId> groups;
  for (size_t begin = 0; begin < values.size(); begin += kMaxConcatInputs) {
    const size_t end = std::min(values.size(), begin + kMaxConcatInputs);
    const std::vector<ValueId> part(values.begin() + begin, values.begin() + end);
    groups.push_back(part.size() == 1 ? part[0]
                                      : Op("concatenate", part, {{"axis", axis}},
                                           absl::StrCat(role.empty() ? "concat" : role, "_part")));
  }
  return Concat(groups, axis, role);
}

ValueId NodeContext::NewConstant(const std::string& role, NDArray data) {
  return state_.builder.Constant(state_.UniqueName(absl::StrCat(name_, "/", role)),
                                 std::move(data));
}

ValueId NodeContext::Reshape(ValueId x, const std::vector<int64_t>& shape,
                             const std::string& role) {
  if (x != kInvalid && TypeOf(x).shape == shape) return x;
  return Op("reshape", {x}, {{"newshape", shape}}, role);
}

// ---- errors ----

absl::Status NodeContext::Unsupported(const std::string& detail) const {
  return absl::UnimplementedError(absl::StrCat("unsupported ONNX operator '", op_type(),
                                               "' (node '", name_, "' in ", state_.what, ")",
                                               detail.empty() ? "" : ": ", detail));
}

absl::Status NodeContext::Invalid(const std::string& detail) const {
  return absl::InvalidArgumentError(
      absl::StrCat(state_.what, ": node '", name_, "' (", op_type(), "): ", detail));
}

absl::Status NodeContext::Annotate(const absl::Status& s) const {
  if (s.ok()) return s;
  // Already naming this node (Unsupported's and Invalid's own messages): as it is.
  if (absl::StrContains(s.message(), absl::StrCat("node '", name_, "'"))) return s;
  if (s.code() == absl::StatusCode::kUnimplemented) return Unsupported(std::string(s.message()));
  return absl::Status(
      s.code(), absl::StrCat(state_.what, ": node '", name_, "' (", op_type(), "): ", s.message()));
}

// ---- the import ----

namespace {

absl::Status AddInitializers(const ::onnx::GraphProto& g, ImportState& state) {
  if (g.sparse_initializer_size() > 0) {
    return absl::UnimplementedError(absl::StrCat(state.what,
                                                 ": sparse initializers are not supported ('",
                                                 g.sparse_initializer(0).values().name(), "')"));
  }
  for (const ::onnx::TensorProto& t : g.initializer()) {
    absl::StatusOr<NDArray> data = TensorFromProto(t, absl::StrCat("initializer '", t.name(), "'"));
    if (!data.ok()) {
      return absl::Status(data.status().code(),
                          absl::StrCat(state.what, ": ", data.status().message()));
    }
    state.values[t.name()] = Operand{*std::move(data), kInvalid, state.UniqueName(t.name())};
  }
  return absl::OkStatus();
}

// Graph inputs that are not initializers. Their shapes are static by now (import.cc binds
// dim_param).
absl::Status AddInputs(const ::onnx::GraphProto& g, ImportState& state) {
  for (const ::onnx::ValueInfoProto& in : g.input()) {
    if (state.values.count(in.name()) > 0) continue;  // an initializer: a constant
    const std::string where = absl::StrCat(state.what, ": input '", in.name(), "'");
    if (!in.type().has_tensor_type()) {
      return absl::UnimplementedError(absl::StrCat(where, " is not a tensor"));
    }
    const auto& tt = in.type().tensor_type();
    absl::StatusOr<DLDataType> dtype = DLTypeOfOnnx(tt.elem_type());
    if (!dtype.ok())
      return absl::UnimplementedError(absl::StrCat(where, ": ", dtype.status().message()));
    if (!tt.has_shape()) return absl::InvalidArgumentError(absl::StrCat(where, " has no shape"));
    TensorType type{{}, *dtype};
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      if (!tt.shape().dim(d).has_dim_value()) {
        return absl::InvalidArgumentError(absl::StrCat(where, " dimension ", d, " has no value"));
      }
      type.shape.push_back(tt.shape().dim(d).dim_value());
    }
    TESSEL_RETURN_IF_ERROR(CountElements(type.shape, kMaxElements, where).status());
    const std::string name = state.UniqueName(in.name());
    state.values[in.name()] = Operand{NDArray(), state.builder.Input(name, type), name};
  }
  return state.builder.status();
}

// Whether ONNX's inferred type of an output agrees with what the conversion gave.
absl::Status CheckOutputType(const NodeContext& c, const std::string& name, const TensorType& got,
                             const ImportState& state) {
  auto it = state.inferred.find(name);
  if (it == state.inferred.end()) return absl::OkStatus();
  const InferredType want = Inferred(it->second);
  if (!want.known || want.type == got) return absl::OkStatus();
  return c.Unsupported(absl::StrCat("Tessel's result '", name, "' would be ", got.ToString(),
                                    ", ONNX infers ", want.text));
}

absl::Status ConvertNode(const ::onnx::NodeProto& node, const std::string& name,
                         ImportState& state) {
  NodeContext c(state, node, name);
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return c.Unsupported(absl::StrCat("operator domain '", node.domain(), "'"));
  }
  const Converter* convert = FindConverter(node.op_type());
  if (convert == nullptr) return c.Unsupported("");
  // Outputs ONNX knows to be huge are refused before anything is built for them.
  for (const std::string& out : node.output()) {
    auto it = state.inferred.find(out);
    if (it == state.inferred.end()) continue;
    const InferredType t = Inferred(it->second);
    if (t.known) {
      absl::Status s =
          CountElements(t.type.shape, kMaxElements, absl::StrCat("output '", out, "'")).status();
      if (!s.ok()) return c.Invalid(std::string(s.message()));
    }
  }
  TESSEL_RETURN_IF_ERROR(c.Annotate((*convert)(c)));
  if (!state.builder.status().ok()) {
    return absl::Status(state.builder.status().code(),
                        absl::StrCat(state.what, ": ONNX node '", name, "' (", node.op_type(),
                                     "): ", state.builder.status().message()));
  }
  for (const std::string& out : node.output()) {
    if (out.empty()) continue;
    auto it = state.values.find(out);
    if (it == state.values.end() ||
        (!it->second.constant.defined() && it->second.value == kInvalid)) {
      // Converters set every output a node or the graph reads; one they left is unused.
      if (state.consumed.count(out) == 0) continue;
      return absl::InternalError(absl::StrCat(state.what, ": node '", name, "' (", node.op_type(),
                                              "): the conversion gave no value for output '", out,
                                              "'"));
    }
    const Operand& o = it->second;
    const TensorType got = o.constant.defined() ? TensorType{o.constant.shape(), o.constant.dtype()}
                                                : state.builder.type(o.value);
    TESSEL_RETURN_IF_ERROR(CheckOutputType(c, out, got, state));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> ImportModel(const ::onnx::ModelProto& model, const std::string& what,
                                  const ImportOptions& options) {
  ImportState state(what, options.max_constant_bytes);
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      state.opset = static_cast<int>(opset.version());
    }
  }
  if (state.opset <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the model imports no ONNX opset"));
  }
  const ::onnx::GraphProto& g = model.graph();
  for (const auto& v : g.value_info()) state.inferred[v.name()] = &v.type();
  for (const auto& v : g.output()) state.inferred[v.name()] = &v.type();
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) state.consumed.insert(in);
  }
  for (const auto& out : g.output()) state.consumed.insert(out.name());

  TESSEL_RETURN_IF_ERROR(AddInitializers(g, state));
  TESSEL_RETURN_IF_ERROR(AddInputs(g, state));

  const std::vector<std::string> names = NodeNames(g);
  std::vector<std::string> graph_names;
  for (const std::string& name : names) graph_names.push_back(state.UniqueName(name));
  for (int i = 0; i < g.node_size(); ++i) {
    TESSEL_RETURN_IF_ERROR(ConvertNode(g.node(i), graph_names[static_cast<size_t>(i)], state));
  }
  for (const auto& out : g.output()) {
    auto it = state.values.find(out.name());
    if (it == state.values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": graph output '", out.name(), "' is computed by no node"));
    }
    state.builder.Output(state.Materialize(out.name(), it->second));
  }
  absl::StatusOr<Graph> graph = state.builder.Finish();
  if (!graph.ok()) {
    return absl::Status(graph.status().code(), absl::StrCat(what, ": ", graph.status().message()));
  }
  return graph;
}

}  // namespace tessel::graph::onnx::internal
