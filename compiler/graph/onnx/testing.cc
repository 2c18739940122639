#include "compiler/graph/onnx/testing.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "baselines/torch/graph_reference.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/uniform_real.h"

namespace tessel::graph::onnx::testing {

using runtime::NDArray;

::onnx::ModelProto NewModel(int opset) { return onnx::NewModel(opset, "tessel-test", "test"); }

void AddInput(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
              int elem_type) {
  AddValueInfo(*m.mutable_graph()->mutable_input(), name, dims, elem_type);
}

void AddOutput(::onnx::ModelProto& m, const std::string& name, int rank, int elem_type) {
  AddValueInfoOfRank(*m.mutable_graph()->mutable_output(), name, rank, elem_type);
}

void AddInitializer(::onnx::ModelProto& m, const std::string& name, const NDArray& data) {
  *m.mutable_graph()->add_initializer() = TensorToProto(data, name);
}

::onnx::NodeProto& AddNode(::onnx::ModelProto& m, const std::string& op_type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name) {
  return onnx::AddNode(*m.mutable_graph(), op_type, inputs, outputs, name);
}

absl::StatusOr<Graph> Import(const ::onnx::ModelProto& m, const ImportOptions& options) {
  return ImportOnnxBytes(m.SerializeAsString(), "test.onnx", options);
}

NDArray Floats(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLFloat, 32, 1});
  std::memcpy(a.data<float>(), values.data(), values.size() * sizeof(float));
  return a;
}

NDArray Int64s(const std::vector<int64_t>& shape, const std::vector<int64_t>& values) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLInt, 64, 1});
  std::memcpy(a.data<int64_t>(), values.data(), values.size() * sizeof(int64_t));
  return a;
}

NDArray Random(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray a = NDArray::Empty(shape, DLDataType{kDLFloat, 32, 1});
  std::mt19937 rng(seed);
  UniformReal<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = dist(rng);
  return a;
}

std::vector<float> Values(const NDArray& a) {
  return std::vector<float>(a.data<float>(), a.data<float>() + a.NumElements());
}

absl::StatusOr<std::vector<NDArray>> Evaluate(const ::onnx::ModelProto& m,
                                              const std::vector<NDArray>& inputs) {
  TESSEL_ASSIGN_OR_RETURN(const Graph g, Import(m));
  return baselines::EvaluateReference(g, inputs);
}

double MaxError(const NDArray& a, const NDArray& b) {
  if (a.shape() != b.shape() || !runtime::SameDLType(a.dtype(), b.dtype()) ||
      !runtime::SameDLType(a.dtype(), DLDataType{kDLFloat, 32, 1})) {
    return std::numeric_limits<double>::infinity();
  }
  double err = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isnan(x) != std::isnan(y)) return std::numeric_limits<double>::infinity();
    if (!std::isnan(x)) err = std::max(err, std::abs(x - y));
  }
  return err;
}

}  // namespace tessel::graph::onnx::testing
