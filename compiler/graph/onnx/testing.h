#pragma once

#include <absl/status/statusor.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/graph/onnx/proto_builder.h"
#include "compiler/runtime/ndarray.h"

// Helpers for the frontend's tests: ONNX models built with the protobuf API, and float arrays.
namespace tessel::graph::onnx::testing {

// An empty model of the default ONNX domain at `opset` (IR version 8).
::onnx::ModelProto NewModel(int opset);
// A graph input of static shape.
void AddInput(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
              int elem_type = ::onnx::TensorProto::FLOAT);
// A graph output of `rank` unknown extents (shape inference supplies them).
void AddOutput(::onnx::ModelProto& m, const std::string& name, int rank,
               int elem_type = ::onnx::TensorProto::FLOAT);
void AddInitializer(::onnx::ModelProto& m, const std::string& name, const runtime::NDArray& data);
::onnx::NodeProto& AddNode(::onnx::ModelProto& m, const std::string& op_type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name = "");

using onnx::SetAttr;  // proto_builder.h's

absl::StatusOr<Graph> Import(const ::onnx::ModelProto& m, const ImportOptions& options = {});

runtime::NDArray Floats(const std::vector<int64_t>& shape, const std::vector<float>& values);
runtime::NDArray Int64s(const std::vector<int64_t>& shape, const std::vector<int64_t>& values);
// Values uniform in [-1, 1), the same for the same seed.
runtime::NDArray Random(const std::vector<int64_t>& shape, uint32_t seed);
std::vector<float> Values(const runtime::NDArray& a);

// Imports the model, evaluates it with EvaluateReference on `inputs`, and returns the outputs.
absl::StatusOr<std::vector<runtime::NDArray>> Evaluate(const ::onnx::ModelProto& m,
                                                       const std::vector<runtime::NDArray>& inputs);

// The largest |a - b| over the elements, or infinity when the shapes or types differ.
double MaxError(const runtime::NDArray& a, const runtime::NDArray& b);

}  // namespace tessel::graph::onnx::testing
