#include "compiler/graph/onnx/proto_builder.h"

#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"

namespace tessel::graph::onnx {

::onnx::ModelProto NewModel(int opset, const std::string& producer, const std::string& graph_name) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name(producer);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name(graph_name);
  return m;
}

int32_t OnnxElemType(DLDataType dt) {
  if (dt.lanes != 1) return ::onnx::TensorProto::UNDEFINED;
  if (dt.code == kDLFloat && dt.bits == 32) return ::onnx::TensorProto::FLOAT;
  if (dt.code == kDLFloat && dt.bits == 64) return ::onnx::TensorProto::DOUBLE;
  if (dt.code == kDLInt && dt.bits == 64) return ::onnx::TensorProto::INT64;
  if (dt.code == kDLInt && dt.bits == 32) return ::onnx::TensorProto::INT32;
  if (dt.code == kDLInt && dt.bits == 8) return ::onnx::TensorProto::INT8;
  if (dt.code == kDLUInt && dt.bits == 8) return ::onnx::TensorProto::UINT8;
  if (dt.code == runtime::kDLBool) return ::onnx::TensorProto::BOOL;
  return ::onnx::TensorProto::UNDEFINED;
}

::onnx::TensorProto TensorToProto(const runtime::NDArray& a, const std::string& name) {
  const int32_t type = OnnxElemType(a.dtype());
  TESSEL_CHECK(type != ::onnx::TensorProto::UNDEFINED)
      << "no ONNX element type for " << runtime::DLTypeToString(a.dtype());
  ::onnx::TensorProto t;
  t.set_name(name);
  for (int64_t d : a.shape()) t.add_dims(d);
  t.set_data_type(type);
  t.set_raw_data(std::string(a.data<char>(), static_cast<size_t>(a.NumBytes())));
  return t;
}

namespace {

::onnx::TypeProto::Tensor& NewValueInfo(
    ::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& list, const std::string& name,
    int32_t elem_type) {
  auto* v = list.Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  return *t;
}

::onnx::AttributeProto& NewAttr(::onnx::NodeProto& n, const std::string& name,
                                ::onnx::AttributeProto::AttributeType type) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return *a;
}

}  // namespace

void AddValueInfo(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& list,
                  const std::string& name, const std::vector<int64_t>& dims, int32_t elem_type) {
  auto* shape = NewValueInfo(list, name, elem_type).mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void AddValueInfoOfRank(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& list,
                        const std::string& name, int rank, int32_t elem_type) {
  auto* shape = NewValueInfo(list, name, elem_type).mutable_shape();
  for (int d = 0; d < rank; ++d) shape->add_dim();
}

::onnx::NodeProto& AddNode(::onnx::GraphProto& g, const std::string& op_type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name) {
  auto* n = g.add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& out : outputs) n->add_output(out);
  return *n;
}

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
void SetAttr(::onnx::NodeProto& n, const std::string& name, const runtime::NDArray& v) {
  *NewAttr(n, name, ::onnx::AttributeProto::TENSOR).mutable_t() = TensorToProto(v);
}

}  // namespace tessel::graph::onnx
