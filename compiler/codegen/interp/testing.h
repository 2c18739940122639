#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "compiler/codegen/interp/interp.h"
#include "compiler/support/aligned_allocator.h"
#include "compiler/ir/op.h"

// Helpers for the interpreter's tests: host tensors behind a DLTensor, and loop shorthands.
namespace tessel::interp::testing {

template <typename T>
DLDataType DLTypeOf() {
  const uint16_t lanes = 1;
  if constexpr (std::is_same_v<T, _Float16>) return {kDLFloat, 16, lanes};
  if constexpr (std::is_floating_point_v<T>) return {kDLFloat, sizeof(T) * 8, lanes};
  if constexpr (std::is_signed_v<T>) return {kDLInt, sizeof(T) * 8, lanes};
  return {kDLUInt, sizeof(T) * 8, lanes};
}

// A compact row-major tensor that owns its elements, 64-byte aligned (bool tensors: use uint8_t).
template <typename T>
class HostTensor {
 public:
  explicit HostTensor(std::vector<int64_t> shape, T fill = T()) : shape_(std::move(shape)) {
    int64_t count = 1;
    for (int64_t d : shape_) count *= d;
    values.assign(static_cast<size_t>(count), fill);
    tensor_.device = {kDLCPU, 0};
    tensor_.ndim = static_cast<int>(shape_.size());
    tensor_.dtype = DLTypeOf<T>();
    tensor_.shape = shape_.data();
    tensor_.strides = nullptr;
    tensor_.byte_offset = 0;
  }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  // The DLTensor, pointing at the current elements.
  DLTensor* dl() {
    tensor_.data = values.data();
    return &tensor_;
  }
  T& operator[](int64_t i) { return values[static_cast<size_t>(i)]; }

  AlignedVector<T> values;

 private:
  std::vector<int64_t> shape_;
  DLTensor tensor_{};
};

// for (var = 0; var < extent; ++var) body, serial.
inline ir::Stmt Loop(const ir::Var& var, ir::Expr extent, ir::Stmt body) {
  return ir::For(var, ir::IntImm(var.dtype(), 0), std::move(extent), ir::ForKind::kSerial,
                 std::move(body));
}

// A loop bound to a GPU thread index: tag is "blockIdx.x", "threadIdx.y", ...
inline ir::Stmt Bind(const ir::Var& var, ir::Expr extent, const char* tag, ir::Stmt body) {
  return ir::For(var, ir::IntImm(var.dtype(), 0), std::move(extent), ir::ForKind::kThreadBinding,
                 std::move(body), tag);
}

// Evaluate(storage_sync("shared")).
inline ir::Stmt Barrier() {
  return ir::Evaluate(ir::Call(ir::kInt32, ir::Intrinsic::kStorageSync, {ir::StringImm("shared")}));
}

}  // namespace tessel::interp::testing
