#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// Building ONNX models with the protobuf API: what the exporter (workloads/exported) writes and
// what the frontend's tests build their cases with.
namespace tessel::graph::onnx {

// An empty model of the default ONNX domain at `opset`, IR version 8 (ONNX 1.12's, opsets <= 17).
::onnx::ModelProto NewModel(int opset, const std::string& producer, const std::string& graph_name);

// The ONNX element type of a DLPack type: FLOAT, DOUBLE, INT32, INT64, UINT8, INT8 or BOOL;
// TensorProto::UNDEFINED for any other.
int32_t OnnxElemType(DLDataType dtype);

// A TensorProto of the array (its bytes as raw_data). The array's type must have an ONNX element
// type (a check: callers make the arrays they write).
::onnx::TensorProto TensorToProto(const runtime::NDArray& a, const std::string& name = "");

// A graph input or output of static extents; `dims` empty with rank > 0 is not expressible here:
// AddValueInfoOfRank declares `rank` unknown extents (shape inference fills them).
void AddValueInfo(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& list,
                  const std::string& name, const std::vector<int64_t>& dims, int32_t elem_type);
void AddValueInfoOfRank(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& list,
                        const std::string& name, int rank, int32_t elem_type);

::onnx::NodeProto& AddNode(::onnx::GraphProto& g, const std::string& op_type,
                           const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const std::string& name = "");

void SetAttr(::onnx::NodeProto& n, const std::string& name, int64_t v);
void SetAttr(::onnx::NodeProto& n, const std::string& name, float v);
void SetAttr(::onnx::NodeProto& n, const std::string& name, const std::string& v);
void SetAttr(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void SetAttr(::onnx::NodeProto& n, const std::string& name, const runtime::NDArray& v);

}  // namespace tessel::graph::onnx
