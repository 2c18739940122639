#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <map>
#include <string>

#include "compiler/graph/graph.h"

// The ONNX frontend: an ONNX model (protobuf) to a Graph. The model first goes through ONNX's own
// checker and shape inference; then each ONNX node becomes one or more graph operators
// (compiler/ops/OPERATORS.md), initializers become constants, and nodes whose inputs are all
// constants and that only compute shapes (Shape, ConstantOfShape, ...) are evaluated here.
//
// Errors (InvalidArgument) name the file and the node or value; an ONNX operator (or an attribute
// value of one) that Tessel does not support is Unimplemented, with a message that starts
// "unsupported ONNX operator '<op_type>'" and names the node.
namespace tessel::graph::onnx {

struct ImportOptions {
  // Values for symbolic dimensions (dim_param), by name, e.g. {"batch_size", 1}. A symbolic
  // dimension left without a value is an error naming the input.
  std::map<std::string, int64_t> dims = {};
  // The most bytes of constants the import may compute itself (ConstantOfShape, folded shape
  // arithmetic, weights re-laid for an operator); initializers read from the model do not count.
  // A model that needs more is refused (ResourceExhausted) instead of exhausting memory.
  int64_t max_constant_bytes = int64_t{4} << 30;
};

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});
// `what` names the model in messages (a path, or "<fuzz input>").
absl::StatusOr<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& what,
                                      const ImportOptions& options = {});

}  // namespace tessel::graph::onnx
