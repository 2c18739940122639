#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// ONNX element types and TensorProtos as DLPack types and NDArrays (the frontend's internals).
namespace tessel::graph::onnx::internal {

// The ONNX name of an element type ("FLOAT", "INT64", ...), or "type <n>" for an unknown code.
std::string OnnxTypeName(int32_t elem_type);

// The DLPack type of an ONNX element type: FLOAT, DOUBLE, INT8/16/32/64, UINT8/16, BOOL. Others
// (STRING, FLOAT16, COMPLEX64, ...) are Unimplemented, naming the type.
absl::StatusOr<DLDataType> DLTypeOfOnnx(int32_t elem_type);

// The number of elements of `shape`, or InvalidArgument for a negative extent or a count past
// `max_elements`. `what` names the tensor in the message.
absl::StatusOr<int64_t> CountElements(const std::vector<int64_t>& shape, int64_t max_elements,
                                      const std::string& what);

// The tensor of a TensorProto: its dims, element type, and data from raw_data or the typed field
// its type uses. Errors name the tensor by `what`: an unsupported element type (Unimplemented),
// external or segmented data, data of the wrong size.
absl::StatusOr<runtime::NDArray> TensorFromProto(const ::onnx::TensorProto& proto,
                                                 const std::string& what);

}  // namespace tessel::graph::onnx::internal
