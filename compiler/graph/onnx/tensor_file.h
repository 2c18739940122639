#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/ndarray.h"

// ONNX TensorProto files (the input_0.pb / output_0.pb of ONNX's backend test data) as NDArrays.
namespace tessel::graph::onnx {

// The tensor in a serialized TensorProto file; errors name the file (unreadable, not a
// TensorProto, an element type without an NDArray equivalent, data of the wrong size).
absl::StatusOr<runtime::NDArray> ReadTensorProtoFile(const std::string& path);

}  // namespace tessel::graph::onnx
