#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/ir/dtype.h"
#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// cast: x converted element by element to another element type, as C and ONNX's Cast convert.
// The element types are float32, float64, int32 and int64 (on both sides; the same on both is a
// copy). A float becomes an integer by truncation toward zero (values outside the integer's range
// are not part of the contract: the x86 backend saturates); int64 becomes int32 by keeping the
// low 32 bits (two's complement wrap); a conversion to a float rounds to nearest (even).
namespace tessel::ops::nn {

// The element type argument `key` of `reader` names: "float32", "float64", "int32" or "int64"
// (required). An error names the key and quotes any other text.
absl::StatusOr<ir::DataType> CastElementType(const ArgReader& reader, const std::string& key);
// The same for an optional argument: float32 when `key` is absent.
absl::StatusOr<ir::DataType> CastElementTypeOr(const ArgReader& reader, const std::string& key);

// Where tests draw x from, [low, high): both signs and fractional parts for a float source (so a
// float to integer cast shows its truncation), and past int32's range for an int64 source cast
// to int32 (so the check sees the wrap).
struct CastInputRange {
  double low = -100, high = 100;
};
CastInputRange CastRange(ir::DataType from, ir::DataType to);

// x (of a type CastElementType accepts) converted to `to` (likewise): a compute of x's shape
// named "cast". Errors name the unsupported type.
absl::StatusOr<te::Tensor> Cast(const te::Tensor& x, ir::DataType to);

}  // namespace tessel::ops::nn
