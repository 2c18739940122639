#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// An ONNX model written the way torch.onnx.export (PyTorch 2.x, opset 17, eval mode, constant
// folding on) writes one, for the exporter of workloads/exported:
//   - parameters and buffers are initializers under torch's names ("layer1.0.conv1.weight");
//     arrays its constant folding computed (a transposed weight, LSTM's re-laid gates) are
//     initializers named "onnx::<Op>_<n>";
//   - every other constant (shapes, axes, Clip's bounds, scalars) is a Constant node;
//   - nodes are named by their module scope, "/layer1/layer1.0/conv1/Conv" for a Conv in module
//     "layer1.0.conv1" (a repeated name gets "_1", "_2", ...), and their outputs
//     "<node>_output_<i>";
//   - the graph's outputs are renamed to the names the caller gives (torch's output_names).
namespace tessel::workloads::exported {

// The opset written: the newest Debian's ONNX 1.12 checks, as torch.onnx.export writes it when
// asked for opset_version=17.
inline constexpr int kExportOpset = 17;

class TorchStyleModel {
 public:
  explicit TorchStyleModel(const std::string& graph_name, int opset = kExportOpset);

  // A graph input of static extents.
  std::string Input(const std::string& name, const std::vector<int64_t>& dims,
                    int32_t elem_type = ::onnx::TensorProto::FLOAT);
  // An initializer named as torch names the parameter.
  std::string Parameter(const std::string& name, const runtime::NDArray& value);
  // An initializer constant folding made for an input of an `op_type` node.
  std::string Folded(const std::string& op_type, const runtime::NDArray& value);
  // A Constant node in module `scope` ("" for the top level).
  std::string Constant(const std::string& scope, const runtime::NDArray& value);
  std::string Int64s(const std::string& scope, const std::vector<int64_t>& values);
  std::string Int64Scalar(const std::string& scope, int64_t value);
  std::string FloatScalar(const std::string& scope, float value);

  // A node of `op_type` in module `scope` with `outputs` outputs; an empty input name is an
  // omitted optional input.
  ::onnx::NodeProto& Node(const std::string& scope, const std::string& op_type,
                          const std::vector<std::string>& inputs, int outputs = 1);
  // A one-output node's output.
  std::string Op(const std::string& scope, const std::string& op_type,
                 const std::vector<std::string>& inputs);

  // nn.Linear on a 2-D input with a bias: Gemm(x, weight, bias), transB = 1.
  std::string Linear(const std::string& scope, const std::string& x, const std::string& weight,
                     const std::string& bias);

  // Makes node output `value` the graph output `name` of static `dims`.
  void Output(const std::string& value, const std::string& name, const std::vector<int64_t>& dims,
              int32_t elem_type = ::onnx::TensorProto::FLOAT);

  // The model, with `metadata` as its metadata_props.
  ::onnx::ModelProto Finish(const std::map<std::string, std::string>& metadata) &&;

 private:
  std::string NodeName(const std::string& scope, const std::string& op_type);

  ::onnx::ModelProto model_;
  std::map<std::string, int> node_names_;  // per base name, how many were made
  int folded_ = 0;
};

}  // namespace tessel::workloads::exported
