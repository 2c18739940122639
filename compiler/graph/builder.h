#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

// Builds a Graph node by node, inferring each node's output types as it is added.
//
//   Builder b;
//   ValueId x = b.Input("x", {{1, 3, 224, 224}});
//   ValueId w = b.Constant("conv1.weight", weight);           // an NDArray [64, 3, 7, 7]
//   ValueId y = b.Op("conv2d", {x, w}, {{"stride", {2, 2}}, {"pad", {3, 3, 3, 3}}}, "conv1");
//   y = b.Op("relu", {y});
//   b.Output(y);
//   absl::StatusOr<Graph> g = b.Finish();
//
// Errors do not interrupt building: the first one is kept (naming the node, its operator and
// what is wrong) and returned by Finish; the values of a failed node are kInvalid, which later
// nodes may take without further messages.
namespace tessel::graph {

inline constexpr ValueId kInvalid = -1;

class Builder {
 public:
  ValueId Input(const std::string& name, TensorType type);
  // data must be compact; its shape and type are the value's.
  ValueId Constant(const std::string& name, runtime::NDArray data);
  // Adds a node (name: unique; empty gives "<op>_<k>") and returns its outputs, named after the
  // node ("<name>" for one output, "<name>:<i>" for several).
  std::vector<ValueId> Add(const std::string& op, const std::vector<ValueId>& inputs,
                           nlohmann::json attrs = nlohmann::json::object(),
                           const std::string& name = "");
  // Add for a one-output operator.
  ValueId Op(const std::string& op, const std::vector<ValueId>& inputs,
             nlohmann::json attrs = nlohmann::json::object(), const std::string& name = "");
  void Output(ValueId v);

  // The type of a value built so far (an empty float32 shape for kInvalid).
  const TensorType& type(ValueId v) const;
  // The first error so far.
  const absl::Status& status() const { return status_; }
  // The graph (verified), or the first error.
  absl::StatusOr<Graph> Finish();

 private:
  ValueId AddValue(Value v);
  std::string UniqueName(const std::string& base);
  void Fail(absl::Status s);

  Graph g_;
  absl::Status status_;
  int next_id_ = 0;
};

}  // namespace tessel::graph
