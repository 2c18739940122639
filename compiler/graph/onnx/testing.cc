#include "compiler/graph/onnx/testing.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "baselines/torch/graph_reference.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::testing {

using runtime::NDArray;

::onnx::ModelProto NewModel(int opset) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("tessel-test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("test");
  return m;
}

void AddInput(::onnx::ModelProto& m, const std::string& name, const std::vector<int64_t>& dims,
              int elem_type) {
  auto* in = m.mutable_graph()->add_input();
  in->set_name(name);
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void AddOutput(::onnx::ModelProto& m, const std::string& name, int rank, int elem_type) {
  auto* out = m.mutable_graph()->add_output();
  out->set_name(name);
  auto* t = out->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int d = 0; d < rank; ++d) shape->add_dim();
}

::onnx::TensorProto ToProto(const NDArray& a, const std::string& name) {
  ::onnx::TensorProto t;
  t.set_name(name);
  for (int64_t d : a.shape()) t.add_dims(d);
  const DLDataType dt = a.dtype();
  if (dt.code == kDLFloat && dt.bits == 32) t.set_data_type(::onnx::TensorProto::FLOAT);
  if (dt.code == kDLFloat && dt.bits == 64) t.set_data_type(::onnx::TensorProto::DOUBLE);
  if (dt.code == kDLInt && dt.bits == 64) t.set_data_type(::onnx::TensorProto::INT64);
  if (dt.code == kDLInt && dt.bits == 32) t.set_data_type(::onnx::TensorProto::INT32);
  if (dt.code == kDLUInt && dt.bits == 8) t.set_data_type(::onnx::TensorProto::UINT8);
  if (dt.code == runtime::kDLBool) t.set_data_type(::onnx::TensorProto::BOOL);
  t.set_raw_data(std::string(a.data<char>(), static_cast<size_t>(a.NumBytes())));
  return t;
}

void AddInitializer(::onnx::ModelProto& m, const std::string& name, const NDArray& data) {
  *m.mutable_graph()->add_initializer() = ToProto(data, name);
}

::onnx::NodeProto& AddNode(::onnx::ModelProto& m, const std::string& op_type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& out : outputs) n->add_output(out);
  return *n;
}

namespace {
::onnx::AttributeProto& NewAttr(::onnx::NodeProto& n, const std::string& name,
                                ::onnx::AttributeProto::AttributeType type) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return *a;
}
}  // namespace

void SetAttr(::onnx::NodeProto& n, const std::string& name, int64_t v) {
  NewAttr(n, name, ::onnx::AttributeProto::INT).set_i(v);
}
void SetAttr(::onnx::NodeProto& n, const std::string& name, float v) {
  NewAttr(n, name, ::onnx::AttributeProto::FLOAT).set_f(v);
}
void SetAttr(::onnx::NodeProto& n, const std::string& name, const std::string& v) {
  NewAttr(n, name, ::onnx::AttributeProto::STRING).set_s(v);
}
void SetAttr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto& a = NewAttr(n, name, ::onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
}
void SetAttr(::onnx::NodeProto& n, const std::string& name, const NDArray& v) {
  *NewAttr(n, name, ::onnx::AttributeProto::TENSOR).mutable_t() = ToProto(v);
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
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
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
