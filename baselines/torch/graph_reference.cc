#include "baselines/torch/graph_reference.h"

#include <absl/strings/str_cat.h>

#include "baselines/torch/reference.h"
#include "compiler/graph/node_layout.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::baselines {
namespace {

using graph::Graph;
using graph::LayoutName;
using graph::Node;
using graph::NodeLayout;
using graph::NodeLayoutOf;
using graph::OpArgsOf;
using graph::TensorType;
using graph::Value;
using graph::ValueId;
using graph::ValueKind;

// x converted between layout blocks (0: NCHW) by libtorch's layout_transform reference.
absl::StatusOr<runtime::NDArray> Relayout(const runtime::NDArray& x, int64_t from, int64_t to) {
  const nlohmann::json args = {
      {"shape", x.shape()}, {"src", LayoutName(from)}, {"dst", LayoutName(to)}};
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> out,
                          baselines::TorchReference("layout_transform", args, {x}));
  return out.at(0);
}

// A node computing in blocked layouts (node_layout.h) is its operator on the logical inputs,
// its output blocked after.
absl::StatusOr<std::vector<runtime::NDArray>> EvaluateNode(const Node& node,
                                                           const nlohmann::json& args,
                                                           std::vector<runtime::NDArray> in) {
  TESSEL_ASSIGN_OR_RETURN(NodeLayout layout, NodeLayoutOf(node.attrs));
  if (layout.in_block > 0) {
    TESSEL_ASSIGN_OR_RETURN(in[0], Relayout(in[0], layout.in_block, 0));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> out,
                          baselines::TorchReference(node.op, args, in));
  if (layout.out_block > 0 && !out.empty()) {
    TESSEL_ASSIGN_OR_RETURN(out[0], Relayout(out[0], 0, layout.out_block));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<runtime::NDArray>> EvaluateReferenceValues(
    const graph::Graph& g, const std::vector<runtime::NDArray>& inputs) {
  if (inputs.size() != g.inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph takes ", g.inputs.size(), " inputs, got ", inputs.size()));
  }
  std::vector<runtime::NDArray> env(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    const TensorType got{inputs[i].shape(), inputs[i].dtype()};
    if (got != v.type) {
      return absl::InvalidArgumentError(absl::StrCat("input '", v.name, "' must be ",
                                                     v.type.ToString(), ", got ", got.ToString()));
    }
    env[static_cast<size_t>(g.inputs[i])] = inputs[i];
  }
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == ValueKind::kConstant) env[i] = g.values[i].data;
  }
  for (const Node& node : g.nodes) {
    TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, OpArgsOf(g, node));
    std::vector<runtime::NDArray> in;
    for (ValueId id : node.inputs) in.push_back(env[static_cast<size_t>(id)]);
    absl::StatusOr<std::vector<runtime::NDArray>> out = EvaluateNode(node, args, std::move(in));
    if (!out.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name, "' (", node.op, "): ", out.status().message()));
    }
    TESSEL_CHECK(out->size() == node.outputs.size())
        << "libtorch gave " << out->size() << " outputs for node " << node.name;
    for (size_t o = 0; o < out->size(); ++o) {
      env[static_cast<size_t>(node.outputs[o])] = (*out)[o];
    }
  }
  return env;
}

absl::StatusOr<std::vector<runtime::NDArray>> EvaluateReference(
    const graph::Graph& g, const std::vector<runtime::NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> env, EvaluateReferenceValues(g, inputs));
  std::vector<runtime::NDArray> outputs;
  for (ValueId id : g.outputs) outputs.push_back(env[static_cast<size_t>(id)]);
  return outputs;
}

}  // namespace tessel::baselines
