#include "workloads/exported/torch_style.h"

#include <absl/strings/ascii.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

#include "compiler/graph/onnx/proto_builder.h"
#include "compiler/support/check.h"

namespace tessel::workloads::exported {
namespace {

namespace gonnx = graph::onnx;

// "layer1.0.conv1" -> "/layer1/layer1.0/conv1": a numeric component (a Sequential's child) is
// named by its full path, as torch's scopes are.
std::string ScopePath(const std::string& scope) {
  if (scope.empty()) return "";
  std::string path, prefix;
  for (const absl::string_view part : absl::StrSplit(scope, '.')) {
    prefix = prefix.empty() ? std::string(part) : absl::StrCat(prefix, ".", part);
    const bool numeric =
        !part.empty() && std::all_of(part.begin(), part.end(), absl::ascii_isdigit);
    absl::StrAppend(&path, "/", numeric ? prefix : std::string(part));
  }
  return path;
}

}  // namespace

TorchStyleModel::TorchStyleModel(const std::string& graph_name, int opset)
    : model_(gonnx::NewModel(opset, "tessel export (torch.onnx.export's style)", graph_name)) {}

std::string TorchStyleModel::Input(const std::string& name, const std::vector<int64_t>& dims,
                                   int32_t elem_type) {
  gonnx::AddValueInfo(*model_.mutable_graph()->mutable_input(), name, dims, elem_type);
  return name;
}

std::string TorchStyleModel::Parameter(const std::string& name, const runtime::NDArray& value) {
  *model_.mutable_graph()->add_initializer() = gonnx::TensorToProto(value, name);
  return name;
}

std::string TorchStyleModel::Folded(const std::string& op_type, const runtime::NDArray& value) {
  return Parameter(absl::StrCat("onnx::", op_type, "_", folded_++), value);
}

std::string TorchStyleModel::Constant(const std::string& scope, const runtime::NDArray& value) {
  ::onnx::NodeProto& n = Node(scope, "Constant", {});
  gonnx::SetAttr(n, "value", value);
  return n.output(0);
}

std::string TorchStyleModel::Int64s(const std::string& scope, const std::vector<int64_t>& values) {
  runtime::NDArray a =
      runtime::NDArray::Empty({static_cast<int64_t>(values.size())}, DLDataType{kDLInt, 64, 1});
  std::copy(values.begin(), values.end(), a.data<int64_t>());
  return Constant(scope, a);
}

std::string TorchStyleModel::Int64Scalar(const std::string& scope, int64_t value) {
  runtime::NDArray a = runtime::NDArray::Empty({}, DLDataType{kDLInt, 64, 1});
  a.data<int64_t>()[0] = value;
  return Constant(scope, a);
}

std::string TorchStyleModel::FloatScalar(const std::string& scope, float value) {
  runtime::NDArray a = runtime::NDArray::Empty({}, DLDataType{kDLFloat, 32, 1});
  a.data<float>()[0] = value;
  return Constant(scope, a);
}

std::string TorchStyleModel::NodeName(const std::string& scope, const std::string& op_type) {
  const std::string base = absl::StrCat(ScopePath(scope), "/", op_type);
  const int seen = node_names_[base]++;
  return seen == 0 ? base : absl::StrCat(base, "_", seen);
}

::onnx::NodeProto& TorchStyleModel::Node(const std::string& scope, const std::string& op_type,
                                         const std::vector<std::string>& inputs, int outputs) {
  const std::string name = NodeName(scope, op_type);
  std::vector<std::string> names;
  for (int i = 0; i < outputs; ++i) names.push_back(absl::StrCat(name, "_output_", i));
  return gonnx::AddNode(*model_.mutable_graph(), op_type, inputs, names, name);
}

std::string TorchStyleModel::Op(const std::string& scope, const std::string& op_type,
                                const std::vector<std::string>& inputs) {
  return Node(scope, op_type, inputs).output(0);
}

std::string TorchStyleModel::Linear(const std::string& scope, const std::string& x,
                                    const std::string& weight, const std::string& bias) {
  ::onnx::NodeProto& gemm = Node(scope, "Gemm", {x, weight, bias});
  gonnx::SetAttr(gemm, "alpha", 1.0f);
  gonnx::SetAttr(gemm, "beta", 1.0f);
  gonnx::SetAttr(gemm, "transB", int64_t{1});
  return gemm.output(0);
}

void TorchStyleModel::Output(const std::string& value, const std::string& name,
                             const std::vector<int64_t>& dims, int32_t elem_type) {
  bool found = false;
  for (::onnx::NodeProto& n : *model_.mutable_graph()->mutable_node()) {
    for (std::string& out : *n.mutable_output()) {
      if (out == value) {
        out = name;
        found = true;
      }
    }
    for (std::string& in : *n.mutable_input()) {
      if (in == value) in = name;
    }
  }
  TESSEL_CHECK(found) << "no node writes '" << value << "'";
  gonnx::AddValueInfo(*model_.mutable_graph()->mutable_output(), name, dims, elem_type);
}

::onnx::ModelProto TorchStyleModel::Finish(const std::map<std::string, std::string>& metadata) && {
  for (const auto& [key, value] : metadata) {
    auto* p = model_.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  }
  return std::move(model_);
}

}  // namespace tessel::workloads::exported
