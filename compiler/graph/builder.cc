#include "compiler/graph/builder.h"

#include <absl/strings/str_cat.h>

#include "compiler/graph/op_registry.h"
#include "compiler/support/check.h"

namespace tessel::graph {

void Builder::Fail(absl::Status s) {
  if (status_.ok()) status_ = std::move(s);
}

std::string Builder::UniqueName(const std::string& base) {
  for (;;) {
    std::string name = absl::StrCat(base, "_", next_id_++);
    bool taken = false;
    for (const Value& v : g_.values) taken = taken || v.name == name;
    for (const Node& n : g_.nodes) taken = taken || n.name == name;
    if (!taken) return name;
  }
}

ValueId Builder::AddValue(Value v) {
  for (const Value& other : g_.values) {
    if (other.name == v.name) {
      Fail(absl::InvalidArgumentError(absl::StrCat("two values are named '", v.name, "'")));
      return kInvalid;
    }
  }
  g_.values.push_back(std::move(v));
  return static_cast<ValueId>(g_.values.size() - 1);
}

ValueId Builder::Input(const std::string& name, TensorType type) {
  for (int64_t e : type.shape) {
    if (e < 0) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("input '", name, "' has a negative extent: ", type.ToString())));
      return kInvalid;
    }
  }
  ValueId id = AddValue(Value{name, std::move(type), ValueKind::kInput, -1, 0, {}});
  if (id != kInvalid) g_.inputs.push_back(id);
  return id;
}

ValueId Builder::Constant(const std::string& name, runtime::NDArray data) {
  if (!data.defined() || !data.IsContiguous()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("constant '", name, "' has no compact data")));
    return kInvalid;
  }
  TensorType type{data.shape(), data.dtype()};
  return AddValue(Value{name, std::move(type), ValueKind::kConstant, -1, 0, std::move(data)});
}

std::vector<ValueId> Builder::Add(const std::string& op, const std::vector<ValueId>& inputs,
                                  nlohmann::json attrs, const std::string& name) {
  const std::string node_name = name.empty() ? UniqueName(op) : name;
  if (attrs.is_null()) attrs = nlohmann::json::object();  // `{}` in a call reads as null
  absl::StatusOr<const OpDef*> def = FindOpDef(op);
  const int num_outputs = def.ok() ? (*def)->num_outputs : 1;
  std::vector<ValueId> failed(static_cast<size_t>(num_outputs), kInvalid);
  auto fail = [&](const std::string& message) {
    Fail(absl::InvalidArgumentError(absl::StrCat("node '", node_name, "' (", op, "): ", message)));
    return failed;
  };
  if (!def.ok()) return fail(std::string(def.status().message()));
  for (ValueId id : inputs) {
    if (id == kInvalid) return failed;  // an earlier node failed: its error is kept
    if (id < 0 || static_cast<size_t>(id) >= g_.values.size()) {
      return fail(absl::StrCat("input %", id, " does not exist"));
    }
  }
  for (const Node& n : g_.nodes) {
    if (n.name == node_name) return fail("a node of this name exists");
  }
  std::vector<TensorType> in_types;
  for (ValueId id : inputs) in_types.push_back(g_.type(id));
  absl::StatusOr<std::vector<TensorType>> out_types = InferTypes(**def, in_types, attrs);
  if (!out_types.ok()) return fail(std::string(out_types.status().message()));

  const int node_index = static_cast<int>(g_.nodes.size());
  std::vector<ValueId> outputs;
  for (size_t o = 0; o < out_types->size(); ++o) {
    std::string value_name = out_types->size() == 1 ? node_name : absl::StrCat(node_name, ":", o);
    ValueId id = AddValue(Value{
        value_name, (*out_types)[o], ValueKind::kNodeOutput, node_index, static_cast<int>(o), {}});
    if (id == kInvalid) {
      // A clash with an input or constant name: undo this node's values.
      g_.values.resize(g_.values.size() - outputs.size());
      return failed;
    }
    outputs.push_back(id);
  }
  g_.nodes.push_back(Node{node_name, op, std::move(attrs), inputs, outputs});
  return outputs;
}

ValueId Builder::Op(const std::string& op, const std::vector<ValueId>& inputs, nlohmann::json attrs,
                    const std::string& name) {
  std::vector<ValueId> outputs = Add(op, inputs, std::move(attrs), name);
  TESSEL_CHECK(outputs.size() == 1)
      << "Builder::Op on " << op << ", which has " << outputs.size() << " outputs (use Add)";
  return outputs[0];
}

void Builder::Output(ValueId v) {
  if (v == kInvalid) return;
  if (v < 0 || static_cast<size_t>(v) >= g_.values.size()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("output %", v, " does not exist")));
    return;
  }
  g_.outputs.push_back(v);
}

const TensorType& Builder::type(ValueId v) const {
  static const TensorType* const kNone = new TensorType;
  if (v < 0 || static_cast<size_t>(v) >= g_.values.size()) return *kNone;
  return g_.type(v);
}

absl::StatusOr<Graph> Builder::Finish() {
  if (!status_.ok()) return status_;
  absl::Status verified = Verify(g_);
  if (!verified.ok()) return verified;
  return std::move(g_);
}

}  // namespace tessel::graph
