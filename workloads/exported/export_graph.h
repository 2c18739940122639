#pragma once

#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

// A graph of workloads/networks written node by node as torch.onnx.export writes the same
// torch modules (exported.h lists what each operator becomes). The exporter's internals.
namespace tessel::workloads::exported::internal {

struct GraphExportStyle {
  std::vector<std::string> input_names;   // torch's input_names, one per graph input
  std::vector<std::string> output_names;  // torch's output_names, one per graph output
  bool view_flatten = false;  // flatten as x.view(x.size(0), -1) (Shape arithmetic), not Flatten
};

// Unimplemented naming the node for an operator the exporter does not write.
absl::StatusOr<::onnx::ModelProto> ExportGraph(const graph::Graph& g, const std::string& name,
                                               const GraphExportStyle& style,
                                               const std::map<std::string, std::string>& metadata);

// bert_base's graph (workloads/networks/bert.cc) as torch exports Hugging Face's BertModel at
// opset 14: weights read by name from g.
absl::StatusOr<::onnx::ModelProto> ExportBert(const graph::Graph& g,
                                              const std::map<std::string, std::string>& metadata);

// The constant of g called `name`; NotFound naming it.
absl::StatusOr<runtime::NDArray> ConstantNamed(const graph::Graph& g, const std::string& name);
// The [k, n] transpose of a float32 [n, k] matrix (a linear layer's weight as MatMul's B).
runtime::NDArray TransposedMatrix(const runtime::NDArray& w);

// lstm_lm's graph (workloads/networks/lstm_lm.cc) as torch exports its module: weights read by
// name from g.
absl::StatusOr<::onnx::ModelProto> ExportLstmLm(const graph::Graph& g,
                                                const std::map<std::string, std::string>& metadata);

}  // namespace tessel::workloads::exported::internal
