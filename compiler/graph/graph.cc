#include "compiler/graph/graph.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstring>

#include "compiler/graph/node_layout.h"
#include "compiler/graph/op_registry.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph {
namespace {

const char* KindName(ValueKind k) {
  switch (k) {
    case ValueKind::kInput:
      return "input";
    case ValueKind::kConstant:
      return "constant";
    case ValueKind::kNodeOutput:
      return "node_output";
  }
  return "?";
}

absl::StatusOr<ValueKind> ParseKind(const std::string& s) {
  if (s == "input") return ValueKind::kInput;
  if (s == "constant") return ValueKind::kConstant;
  if (s == "node_output") return ValueKind::kNodeOutput;
  return absl::InvalidArgumentError(absl::StrCat("unknown value kind '", s, "'"));
}

absl::Status NodeError(const Node& node, const std::string& message) {
  return absl::InvalidArgumentError(
      absl::StrCat("node '", node.name, "' (", node.op, "): ", message));
}

bool ValidId(const Graph& g, ValueId id) {
  return id >= 0 && static_cast<size_t>(id) < g.values.size();
}

}  // namespace

std::vector<TensorType> Graph::InputTypes(const Node& node) const {
  std::vector<TensorType> types;
  for (ValueId id : node.inputs) types.push_back(type(id));
  return types;
}

std::vector<std::vector<int>> Graph::Consumers() const {
  std::vector<std::vector<int>> consumers(values.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (ValueId id : nodes[i].inputs) consumers[static_cast<size_t>(id)].push_back(int(i));
  }
  return consumers;
}

int64_t Graph::ConstantBytes() const {
  int64_t bytes = 0;
  for (const Value& v : values) {
    if (v.kind == ValueKind::kConstant) bytes += v.type.NumBytes();
  }
  return bytes;
}

absl::StatusOr<nlohmann::json> OpArgsOf(const Graph& g, const Node& node) {
  TESSEL_ASSIGN_OR_RETURN(const OpDef* def, FindOpDef(node.op));
  absl::StatusOr<LogicalView> view =
      LogicalViewOf(node.op, def->blocked_data, g.InputTypes(node), node.attrs);
  if (!view.ok()) return NodeError(node, std::string(view.status().message()));
  absl::StatusOr<nlohmann::json> args = def->op_args(view->inputs, view->attrs);
  if (!args.ok()) return NodeError(node, std::string(args.status().message()));
  return args;
}

absl::Status Verify(const Graph& g) {
  absl::flat_hash_set<std::string> names;
  std::vector<bool> defined(g.values.size(), false);
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (!names.insert(v.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("two values are named '", v.name, "'"));
    }
    if (v.kind == ValueKind::kConstant) {
      if (!v.data.defined() || v.data.shape() != v.type.shape ||
          !runtime::SameDLType(v.data.dtype(), v.type.dtype) || !v.data.IsContiguous()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "constant '", v.name, "' has no compact data of its type ", v.type.ToString()));
      }
      defined[i] = true;
    }
  }
  for (ValueId id : g.inputs) {
    if (!ValidId(g, id) || g.value(id).kind != ValueKind::kInput) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph input %", id, " is not an input value"));
    }
    defined[static_cast<size_t>(id)] = true;
  }
  absl::flat_hash_set<std::string> node_names;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!node_names.insert(node.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("two nodes are named '", node.name, "'"));
    }
    for (ValueId id : node.inputs) {
      if (!ValidId(g, id)) return NodeError(node, absl::StrCat("input %", id, " does not exist"));
      if (!defined[static_cast<size_t>(id)]) {
        return NodeError(node, absl::StrCat("input '", g.value(id).name,
                                            "' is not defined before the node (a cycle, or "
                                            "nodes out of order)"));
      }
    }
    TESSEL_ASSIGN_OR_RETURN(const OpDef* def, FindOpDef(node.op));
    absl::StatusOr<std::vector<TensorType>> types =
        InferTypes(*def, g.InputTypes(node), node.attrs);
    if (!types.ok()) return NodeError(node, std::string(types.status().message()));
    if (types->size() != node.outputs.size()) {
      return NodeError(node, absl::StrCat("has ", node.outputs.size(), " outputs, its operator ",
                                          types->size()));
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      ValueId id = node.outputs[o];
      if (!ValidId(g, id)) return NodeError(node, absl::StrCat("output %", id, " does not exist"));
      const Value& v = g.value(id);
      if (v.kind != ValueKind::kNodeOutput || v.node != static_cast<int>(n) ||
          v.output != static_cast<int>(o) || defined[static_cast<size_t>(id)]) {
        return NodeError(node, absl::StrCat("output '", v.name, "' is not this node's output ", o));
      }
      if (v.type != (*types)[o]) {
        return NodeError(node, absl::StrCat("output '", v.name, "' has type ", v.type.ToString(),
                                            ", the operator gives ", (*types)[o].ToString()));
      }
      defined[static_cast<size_t>(id)] = true;
    }
  }
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == ValueKind::kNodeOutput && !defined[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("value '", g.values[i].name, "' is no node's output"));
    }
  }
  if (g.outputs.empty()) return absl::InvalidArgumentError("the graph has no outputs");
  for (ValueId id : g.outputs) {
    if (!ValidId(g, id))
      return absl::InvalidArgumentError(absl::StrCat("output %", id, " does not exist"));
  }
  return absl::OkStatus();
}

nlohmann::json ToJson(const Graph& g) {
  nlohmann::json values = nlohmann::json::array();
  for (const Value& v : g.values) {
    nlohmann::json j = {{"name", v.name},
                        {"shape", v.type.shape},
                        {"dtype", runtime::DLTypeToString(v.type.dtype)},
                        {"kind", KindName(v.kind)}};
    if (v.kind == ValueKind::kNodeOutput) {
      j["node"] = v.node;
      j["output"] = v.output;
    }
    values.push_back(std::move(j));
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : g.nodes) {
    nodes.push_back({{"name", n.name},
                     {"op", n.op},
                     {"attrs", n.attrs},
                     {"inputs", n.inputs},
                     {"outputs", n.outputs}});
  }
  return {{"values", values}, {"nodes", nodes}, {"inputs", g.inputs}, {"outputs", g.outputs}};
}

absl::StatusOr<Graph> FromJson(const nlohmann::json& j,
                               const std::vector<std::pair<std::string, runtime::NDArray>>& data) {
  Graph g;
  std::string path = "graph";
  try {
    for (size_t i = 0; i < j.at("values").size(); ++i) {
      path = absl::StrCat("values[", i, "]");
      const nlohmann::json& jv = j.at("values").at(i);
      Value v;
      v.name = jv.at("name").get<std::string>();
      v.type.shape = jv.at("shape").get<std::vector<int64_t>>();
      TESSEL_ASSIGN_OR_RETURN(v.type.dtype,
                              runtime::ParseDLType(jv.at("dtype").get<std::string>()));
      TESSEL_ASSIGN_OR_RETURN(v.kind, ParseKind(jv.at("kind").get<std::string>()));
      if (v.kind == ValueKind::kNodeOutput) {
        v.node = jv.at("node").get<int>();
        v.output = jv.at("output").get<int>();
      }
      g.values.push_back(std::move(v));
    }
    for (size_t i = 0; i < j.at("nodes").size(); ++i) {
      path = absl::StrCat("nodes[", i, "]");
      const nlohmann::json& jn = j.at("nodes").at(i);
      g.nodes.push_back(Node{jn.at("name").get<std::string>(), jn.at("op").get<std::string>(),
                             jn.at("attrs"), jn.at("inputs").get<std::vector<ValueId>>(),
                             jn.at("outputs").get<std::vector<ValueId>>()});
    }
    path = "inputs";
    g.inputs = j.at("inputs").get<std::vector<ValueId>>();
    path = "outputs";
    g.outputs = j.at("outputs").get<std::vector<ValueId>>();
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("graph JSON at ", path, ": ", e.what()));
  }
  for (const auto& [name, array] : data) {
    bool found = false;
    for (Value& v : g.values) {
      if (v.name == name && v.kind == ValueKind::kConstant) {
        v.data = array;
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("data for '", name, "', which is no constant"));
    }
  }
  TESSEL_RETURN_IF_ERROR(Verify(g));
  return g;
}

std::string ToText(const Graph& g) {
  auto ref = [&](ValueId id) { return absl::StrCat("%", g.value(id).name); };
  std::string out;
  for (ValueId id : g.inputs) {
    absl::StrAppend(&out, "input ", ref(id), " : ", g.type(id).ToString(), "\n");
  }
  for (const Value& v : g.values) {
    if (v.kind == ValueKind::kConstant) {
      absl::StrAppend(&out, "const %", v.name, " : ", v.type.ToString(), "\n");
    }
  }
  for (const Node& n : g.nodes) {
    std::vector<std::string> outs, ins, types;
    for (ValueId id : n.outputs) {
      outs.push_back(ref(id));
      types.push_back(g.type(id).ToString());
    }
    for (ValueId id : n.inputs) ins.push_back(ref(id));
    absl::StrAppend(&out, absl::StrJoin(outs, ", "), " = ", n.op, "(", absl::StrJoin(ins, ", "),
                    ")");
    if (!n.attrs.empty()) absl::StrAppend(&out, " ", n.attrs.dump());
    absl::StrAppend(&out, " : ", absl::StrJoin(types, ", "), "\n");
  }
  std::vector<std::string> outs;
  for (ValueId id : g.outputs) outs.push_back(ref(id));
  absl::StrAppend(&out, "output ", absl::StrJoin(outs, ", "), "\n");
  return out;
}

}  // namespace tessel::graph
