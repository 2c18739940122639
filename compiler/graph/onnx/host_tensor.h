#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// Tensor operations the importer runs itself, on tensors known at import: shape arithmetic
// (Shape, Gather, Concat, Unsqueeze, Cast, ... on int64 tensors, as exporters emit around
// Reshape), constant weights re-laid for a graph operator (a transposed Gemm weight), and small
// constant arithmetic. Every result is compact and row-major.
//
// Element types: the data-movement operations take any type; arithmetic takes float32, float64,
// int32 and int64 (both operands of one type). Every allocation goes through a ConstantBudget, so
// a model cannot make the importer allocate without bound.
namespace tessel::graph::onnx::internal {

// The bytes of constants an import may still allocate.
class ConstantBudget {
 public:
  explicit ConstantBudget(int64_t max_bytes) : left_(max_bytes) {}
  // A fresh tensor (contents unspecified), or ResourceExhausted naming `what` when it does not
  // fit in what is left (or its shape is invalid).
  absl::StatusOr<runtime::NDArray> Empty(const std::vector<int64_t>& shape, DLDataType dtype,
                                         const std::string& what);

 private:
  int64_t left_;
};

// The broadcast shape of two shapes (numpy rules), or InvalidArgument.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);

// An axis in [-rank, rank) as an index in [0, rank), or InvalidArgument naming `what`.
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, const std::string& what);

// Data movement.
absl::StatusOr<runtime::NDArray> Reshaped(const runtime::NDArray& x,
                                          const std::vector<int64_t>& shape,
                                          ConstantBudget& budget);
absl::StatusOr<runtime::NDArray> Transposed(const runtime::NDArray& x,
                                            const std::vector<int64_t>& perm,
                                            ConstantBudget& budget);
absl::StatusOr<runtime::NDArray> Concatenated(const std::vector<runtime::NDArray>& xs, int64_t axis,
                                              ConstantBudget& budget);
// x with its `axis` replaced by the rows `indices` (each in [0, extent)), in order.
absl::StatusOr<runtime::NDArray> Rows(const runtime::NDArray& x, int64_t axis,
                                      const std::vector<int64_t>& indices, ConstantBudget& budget);
// x repeated reps[d] (>= 1) times along each axis d.
absl::StatusOr<runtime::NDArray> Tiled(const runtime::NDArray& x, const std::vector<int64_t>& reps,
                                       ConstantBudget& budget);
// A tensor of `shape` filled with the one element of `value`.
absl::StatusOr<runtime::NDArray> Filled(const std::vector<int64_t>& shape,
                                        const runtime::NDArray& value, ConstantBudget& budget);

// Element types.
absl::StatusOr<runtime::NDArray> Cast(const runtime::NDArray& x, DLDataType to,
                                      ConstantBudget& budget);

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kEqual, kLess, kGreater };
// Element-wise with numpy broadcasting; comparisons give bool. Integer division truncates toward
// zero; an integer division by zero is InvalidArgument.
absl::StatusOr<runtime::NDArray> Binary(BinaryOp op, const runtime::NDArray& a,
                                        const runtime::NDArray& b, ConstantBudget& budget);
enum class UnaryOp { kNeg, kAbs, kRelu };
absl::StatusOr<runtime::NDArray> Unary(UnaryOp op, const runtime::NDArray& x,
                                       ConstantBudget& budget);
// cond ? a : b with numpy broadcasting (cond bool, a and b of one type).
absl::StatusOr<runtime::NDArray> Where(const runtime::NDArray& cond, const runtime::NDArray& a,
                                       const runtime::NDArray& b, ConstantBudget& budget);

// An int32 tensor of `shape` holding `values` (in int32 range: indices the importer computed).
runtime::NDArray Int32Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape);

// Integer tensors as values: the elements of an int32 or int64 tensor, or InvalidArgument.
absl::StatusOr<std::vector<int64_t>> Int64Values(const runtime::NDArray& x,
                                                 const std::string& what);
// The one element of a one-element tensor of any arithmetic type, as a double.
absl::StatusOr<double> ScalarValue(const runtime::NDArray& x, const std::string& what);
// v rounded to float; past float's range it is an infinity (a plain cast would be undefined).
float ToFloat(double v);
runtime::NDArray Int64Tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape);
runtime::NDArray Float32Tensor(const std::vector<float>& values, std::vector<int64_t> shape);

}  // namespace tessel::graph::onnx::internal
