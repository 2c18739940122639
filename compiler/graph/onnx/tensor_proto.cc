#include "compiler/graph/onnx/tensor_proto.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstring>
#include <limits>

#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using ::onnx::TensorProto;
using runtime::NDArray;

template <class T, class Field>
void CopyField(const Field& field, NDArray& out) {
  T* dst = out.data<T>();
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<T>(field.Get(i));
}

// The length of the typed field that holds elements of the proto's type.
int64_t TypedFieldSize(const TensorProto& proto) {
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      return proto.float_data_size();
    case TensorProto::DOUBLE:
      return proto.double_data_size();
    case TensorProto::INT64:
      return proto.int64_data_size();
    default:  // INT32, INT16, INT8, UINT16, UINT8 and BOOL travel in int32_data
      return proto.int32_data_size();
  }
}

// Copies the typed field into `out`, whose element count equals the field's length.
void CopyTypedData(const TensorProto& proto, NDArray& out) {
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      return CopyField<float>(proto.float_data(), out);
    case TensorProto::DOUBLE:
      return CopyField<double>(proto.double_data(), out);
    case TensorProto::INT64:
      return CopyField<int64_t>(proto.int64_data(), out);
    case TensorProto::INT32:
      return CopyField<int32_t>(proto.int32_data(), out);
    case TensorProto::INT16:
      return CopyField<int16_t>(proto.int32_data(), out);
    case TensorProto::INT8:
      return CopyField<int8_t>(proto.int32_data(), out);
    case TensorProto::UINT16:
      return CopyField<uint16_t>(proto.int32_data(), out);
    case TensorProto::UINT8:
      return CopyField<uint8_t>(proto.int32_data(), out);
    case TensorProto::BOOL: {
      uint8_t* dst = out.data<uint8_t>();
      for (int i = 0; i < proto.int32_data_size(); ++i) dst[i] = proto.int32_data(i) != 0;
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::string OnnxTypeName(int32_t elem_type) {
  if (TensorProto::DataType_IsValid(elem_type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elem_type));
  }
  return absl::StrCat("type ", elem_type);
}

absl::StatusOr<DLDataType> DLTypeOfOnnx(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return DLDataType{kDLFloat, 32, 1};
    case TensorProto::DOUBLE:
      return DLDataType{kDLFloat, 64, 1};
    case TensorProto::INT8:
      return DLDataType{kDLInt, 8, 1};
    case TensorProto::INT16:
      return DLDataType{kDLInt, 16, 1};
    case TensorProto::INT32:
      return DLDataType{kDLInt, 32, 1};
    case TensorProto::INT64:
      return DLDataType{kDLInt, 64, 1};
    case TensorProto::UINT8:
      return DLDataType{kDLUInt, 8, 1};
    case TensorProto::UINT16:
      return DLDataType{kDLUInt, 16, 1};
    case TensorProto::BOOL:
      return DLDataType{runtime::kDLBool, 8, 1};
    default:
      return absl::UnimplementedError(
          absl::StrCat("unsupported ONNX element type ", OnnxTypeName(elem_type)));
  }
}

absl::StatusOr<int64_t> CountElements(const std::vector<int64_t>& shape, int64_t max_elements,
                                      const std::string& what) {
  int64_t count = 1;
  for (int64_t e : shape) {
    if (e < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has a negative extent: [", absl::StrJoin(shape, ", "), "]"));
    }
    if (e != 0 && count > max_elements / e) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is too large: [",
                                                     absl::StrJoin(shape, ", "), "] exceeds ",
                                                     max_elements, " elements"));
    }
    count *= e;
  }
  return count;
}

absl::StatusOr<NDArray> TensorFromProto(const TensorProto& proto, const std::string& what) {
  absl::StatusOr<DLDataType> dtype = DLTypeOfOnnx(proto.data_type());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(), absl::StrCat(what, ": ", dtype.status().message()));
  }
  if (proto.data_location() == TensorProto::EXTERNAL) {
    return absl::UnimplementedError(
        absl::StrCat(what, ": tensors with external data are not supported"));
  }
  if (proto.has_segment()) {
    return absl::UnimplementedError(absl::StrCat(what, ": segmented tensors are not supported"));
  }
  const std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  // An NDArray's bytes must be addressable; the data itself must be in the proto, so this only
  // rejects dims that claim more than any message can hold.
  TESSEL_ASSIGN_OR_RETURN(const int64_t count,
                          CountElements(shape, std::numeric_limits<int32_t>::max(), what));
  const int64_t bytes = count * runtime::DLTypeBytes(*dtype);
  if (proto.has_raw_data()) {
    if (static_cast<int64_t>(proto.raw_data().size()) != bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": raw_data holds ", proto.raw_data().size(), " bytes, its shape [",
          absl::StrJoin(shape, ", "), "] of ", OnnxTypeName(proto.data_type()), " needs ", bytes));
    }
    NDArray out = NDArray::Empty(shape, *dtype);
    if (bytes > 0) std::memcpy(out.data<void>(), proto.raw_data().data(), bytes);
    return out;
  }
  if (const int64_t size = TypedFieldSize(proto); size != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": holds ", size, " values, its shape [", absl::StrJoin(shape, ", "),
                     "] of ", OnnxTypeName(proto.data_type()), " needs ", count));
  }
  NDArray out = NDArray::Empty(shape, *dtype);
  CopyTypedData(proto, out);
  return out;
}

}  // namespace tessel::graph::onnx::internal
