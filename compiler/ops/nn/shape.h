#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/te/tensor.h"

// Shapes of the operator library's computes: constant extents, int32 shape expressions (index
// arithmetic is int32 throughout), and row-major strides.
namespace tessel::ops::nn {

// The extents of t, which must all be integer constants; an error names `what`.
absl::StatusOr<std::vector<int64_t>> ConstShape(const te::Tensor& t, const std::string& what);

// An extent or index constant as an int32 immediate (index arithmetic is int32).
ir::Expr Dim(int64_t v);

// The data-parallel axes of a compute tensor's operation (its loops, outermost first).
const std::vector<ir::IterVar>& Axes(const te::Tensor& t);

// Each extent as an int32 immediate.
std::vector<ir::Expr> ShapeExprs(const std::vector<int64_t>& shape);

// The product of the extents (1 for a scalar shape).
int64_t NumElements(const std::vector<int64_t>& shape);

// A normalized axis in [0, ndim): axis may count from the end (-1 is the last); an error names
// `what` when it is out of range.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int ndim, const std::string& what);

}  // namespace tessel::ops::nn
