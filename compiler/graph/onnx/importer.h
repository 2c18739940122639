#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "compiler/graph/builder.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/onnx/host_tensor.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/runtime/ndarray.h"

// The frontend's internals: the state of one import and the view of one ONNX node that its
// converter (converters.h) gets.
namespace tessel::graph::onnx::internal {

// The element types besides float32 that the arithmetic operators (nn::BinaryElementType), cast
// and reshape compute as they are: float64, int32 and int64.
bool KeptElementType(DLDataType t);

// A value of the ONNX graph during import: a tensor known at import (an initializer, a Constant
// node, or what the importer computed from those), or a graph value computed at run time. A
// known tensor becomes a graph constant only once a graph operator reads it.
struct Operand {
  runtime::NDArray constant;  // defined: known at import
  ValueId value = kInvalid;   // the graph value (for a known tensor: once materialized)
  std::string graph_name;     // the name reserved for its graph value, if any yet
};

// The largest element count of any tensor of the graph: extents reach the operator library's
// 32-bit index arithmetic.
inline constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

inline constexpr size_t kMaxConcatInputs = 16;

struct ImportState {
  ImportState(std::string what, int64_t max_constant_bytes)
      : what(std::move(what)), budget(max_constant_bytes) {}

  // A name no value or node of the graph has yet ("base", else "base_1", ...), now taken.
  std::string UniqueName(const std::string& base);
  // The graph value of an operand, adding a graph constant for a known tensor the first time.
  ValueId Materialize(const std::string& onnx_name, Operand& operand);

  std::string what;  // the model, for messages
  Builder builder;
  ConstantBudget budget;
  int opset = 0;
  std::map<std::string, Operand> values;  // by ONNX name
  std::set<std::string> consumed;         // ONNX names read by a node or an output
  std::map<std::string, const ::onnx::TypeProto*> inferred;  // ONNX's types, by name

 private:
  std::set<std::string> names_;
};

class NodeContext {
 public:
  NodeContext(ImportState& state, const ::onnx::NodeProto& node, std::string name)
      : state_(state), node_(node), name_(std::move(name)) {}

  const ::onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The graph name of this node (the ONNX name when present and unique).
  const std::string& name() const { return name_; }
  int opset() const { return state_.opset; }
  ConstantBudget& budget() { return state_.budget; }

  // Inputs. An optional input ONNX leaves out has an empty name: HasInput is false.
  int NumInputs() const { return node_.input_size(); }
  bool HasInput(int i) const;
  bool IsConstant(int i) const;
  // The tensor of input i when known at import; Unsupported (naming `what`) when it is computed.
  absl::StatusOr<runtime::NDArray> Constant(int i, const std::string& what) const;
  TensorType Type(int i) const;
  std::vector<int64_t> Shape(int i) const { return Type(i).shape; }
  // Input i as a graph value of any element type (materializing a known tensor).
  absl::StatusOr<ValueId> Value(int i);
  // Input i as a graph value of float32 elements (the element type of every graph operator);
  // Unsupported for another type.
  absl::StatusOr<ValueId> Float32(int i);
  // Input i as a graph value of its own type where the operators that take it compute that type
  // as it is (KeptElementType: float64, int32, int64), else as Float32 does.
  absl::StatusOr<ValueId> KeptTypeValue(int i);
  // Input i as a float32 tensor known at import; a null NDArray (defined() false) when it is
  // absent or computed; Unsupported when it is known but of another element type.
  absl::StatusOr<runtime::NDArray> Float32Constant(int i);
  // Input i (float32) with `shape` (as many elements): when known at import, re-laid here as a
  // new constant named `role`; else a reshape node.
  absl::StatusOr<ValueId> Float32Reshaped(int i, const std::vector<int64_t>& shape,
                                          const std::string& role);

  // Outputs.
  int NumOutputs() const { return node_.output_size(); }
  // Whether output i exists and a node or a graph output reads it.
  bool OutputUsed(int i) const;
  void SetOutput(int i, ValueId v);
  void SetOutput(int i, runtime::NDArray constant);
  // Output i is input `in` (Identity).
  void Forward(int out, int in);

  // Attributes. Each returns `fallback` when absent and InvalidArgument for an attribute of
  // another type.
  bool HasAttr(const std::string& name) const { return Attr(name) != nullptr; }
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t fallback) const;
  absl::StatusOr<float> Float(const std::string& name, float fallback) const;
  absl::StatusOr<std::string> String(const std::string& name, const std::string& fallback) const;
  absl::StatusOr<std::vector<int64_t>> Ints(const std::string& name,
                                            std::vector<int64_t> fallback) const;
  absl::StatusOr<std::vector<float>> Floats(const std::string& name) const;
  absl::StatusOr<runtime::NDArray> TensorAttr(const std::string& name) const;

  // Adds a graph node. role empty: the node carries this node's name; else "<name>/<role>".
  // Errors are the builder's (kInvalid comes back; the importer reports the first error).
  ValueId Op(const std::string& op, const std::vector<ValueId>& inputs,
             nlohmann::json attrs = nlohmann::json::object(), const std::string& role = "");
  std::vector<ValueId> OpN(const std::string& op, const std::vector<ValueId>& inputs,
                           nlohmann::json attrs, const std::string& role);
  // The values joined along `axis`: one concatenate node of up to kMaxConcatInputs, else a tree
  // of them (a concatenate of many inputs is a deep expression in the operator library).
  ValueId Concat(const std::vector<ValueId>& values, int64_t axis, const std::string& role);
  // A graph constant named "<name>/<role>".
  ValueId NewConstant(const std::string& role, runtime::NDArray data);
  // x reshaped to `shape` (no node when the shape is already x's).
  ValueId Reshape(ValueId x, const std::vector<int64_t>& shape, const std::string& role);
  const TensorType& TypeOf(ValueId v) const { return state_.builder.type(v); }

  // "unsupported ONNX operator '<op>' (node '<name>' in <model>): detail" (Unimplemented).
  absl::Status Unsupported(const std::string& detail) const;
  // "<model>: node '<name>' (<op>): detail" (InvalidArgument).
  absl::Status Invalid(const std::string& detail) const;
  // s with this node named in front (its code kept); OK stays OK.
  absl::Status Annotate(const absl::Status& s) const;

 private:
  const ::onnx::AttributeProto* Attr(const std::string& name) const;
  Operand& InputOperand(int i) const;
  std::string InputName(int i) const;
  absl::Status WrongAttrType(const std::string& name, const char* expected) const;

  ImportState& state_;
  const ::onnx::NodeProto& node_;
  std::string name_;
  bool named_node_added_ = false;
  mutable Operand absent_;  // what an absent input reads as: no constant, kInvalid
};

// The graph of a checked, shape-inferred model whose graph inputs have static shapes.
absl::StatusOr<Graph> ImportModel(const ::onnx::ModelProto& model, const std::string& what,
                                  const ImportOptions& options);

}  // namespace tessel::graph::onnx::internal
