#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/tensor_type.h"
#include "compiler/runtime/ndarray.h"

// The graph IR: a typed dataflow graph of operators in SSA form. Values are numbered; each is a
// graph input, a constant (with its data), or one output of a node. Nodes are kept in a
// topological order (every input of a node is an input, a constant or an output of an earlier
// node), so a pass or an executor walks them front to back.
//
// A node's operator is a graph operator (op_registry.h): the logical operators of
// compiler/ops/OPERATORS.md. A node keeps only its own attributes (stride, axis, ...); the
// operator-library arguments that also spell out shapes are derived from its input types
// (OpArgsOf). Graphs are built through Builder (builder.h), which infers every type; passes build
// new graphs the same way.
namespace tessel::graph {

using ValueId = int;

enum class ValueKind { kInput, kConstant, kNodeOutput };

struct Value {
  std::string name;  // unique in the graph
  TensorType type;
  ValueKind kind = ValueKind::kNodeOutput;
  int node = -1;          // kNodeOutput: index of the producing node
  int output = 0;         // kNodeOutput: which of its outputs
  runtime::NDArray data;  // kConstant: the contents (compact, of `type`)
};

struct Node {
  std::string name;  // unique in the graph; ONNX node names are kept
  std::string op;    // a graph operator
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;  // topological order
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;

  const Value& value(ValueId id) const { return values.at(static_cast<size_t>(id)); }
  const TensorType& type(ValueId id) const { return value(id).type; }
  std::vector<TensorType> InputTypes(const Node& node) const;
  // Per value, the indices of the nodes that read it (a node reading a value twice is listed
  // twice).
  std::vector<std::vector<int>> Consumers() const;
  // Bytes of all constants.
  int64_t ConstantBytes() const;
};

// The operator-library arguments of a node (OPERATORS.md), from its attributes and input types.
absl::StatusOr<nlohmann::json> OpArgsOf(const Graph& g, const Node& node);

// Checks the invariants above: ids in range, names unique, topological order, each node's output
// types equal to what its operator infers, constants with data of their type. Errors name the
// node or value.
absl::Status Verify(const Graph& g);

// The graph's structure as JSON (values without constant data, nodes, inputs, outputs), and back.
// FromJson takes the constants' data by value name and re-verifies the graph; errors name the
// JSON path.
nlohmann::json ToJson(const Graph& g);
absl::StatusOr<Graph> FromJson(const nlohmann::json& j,
                               const std::vector<std::pair<std::string, runtime::NDArray>>& data);

// A readable listing, one node per line: "%3 = conv2d(%0, %1) {stride: [2, 2]} : float32[...]".
std::string ToText(const Graph& g);

}  // namespace tessel::graph
