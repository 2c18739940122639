#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// take: a gather along one axis by a tensor of int32 or int64 indices (an embedding lookup is take
// on axis 0 of the table). With data of shape D, rank r, and indices of shape I:
//   out[a..., i..., b...] = data[a..., Clamp(indices[i...]), b...]
// where a runs over D[:axis], b over D[axis + 1:], so out has shape
// D[:axis] + I + D[axis + 1:]. With n = D[axis], an index k < 0 counts from the end (k + n, as
// numpy and ONNX Gather), and the result is clamped into [0, n - 1]: an index outside [-n, n)
// reads the nearest end row. Generated code never reads out of bounds and never fails.
namespace tessel::ops::nn {

// The index type the `indices_dtype` argument names: "int32" (the default) or "int64"; an error
// names the key and quotes any other text.
absl::StatusOr<ir::DataType> TakeIndexType(const ArgReader& reader);

// The output shape; errors name the axis or an empty shape.
absl::StatusOr<std::vector<int64_t>> TakeShape(const std::vector<int64_t>& data_shape,
                                               const std::vector<int64_t>& indices_shape,
                                               int64_t axis);

// data of any element type and rank >= 1, indices int32 or int64 of rank >= 1, axis in [-r, r).
absl::StatusOr<te::Tensor> Take(const te::Tensor& data, const te::Tensor& indices, int64_t axis);

}  // namespace tessel::ops::nn
