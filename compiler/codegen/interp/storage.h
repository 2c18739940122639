#pragma once

#include <memory>
#include <vector>

#include "compiler/codegen/interp/code.h"
#include "compiler/codegen/interp/compiler.h"
#include "compiler/ir/buffer.h"

// Storage made by Allocate and BufferRealize while their bodies run. Private to the
// interpreter.
//
// Allocate makes flat storage of shape[0] elements of its buffer's dtype. BufferRealize makes
// storage for the realized region: element (i0, ..., in) is at sum_k (ik - min_k) * stride_k,
// with compact row-major strides over the extents unless the buffer has strides of its own.
// Fresh storage is filled with all-ones bytes, so a read before the first write shows (NaN for
// floats).
namespace tessel::interp::detail {

// One instance of storage; `binding` points into the others, which move with it.
struct Storage {
  std::unique_ptr<std::byte[]> bytes;
  std::vector<RealizedDim> region;
  BufferBinding binding;
};

class StoragePlan {
 public:
  // Allocate (bounds empty) or BufferRealize storage for buffer.
  StoragePlan(ir::Buffer buffer, Bound count, std::vector<Bound> mins, std::vector<Bound> extents,
              std::vector<Bound> strides, bool realized);

  // Makes fresh storage as this run of the statement asks for; false after reporting a fault.
  bool Create(Frame& f, Storage* out) const;

  // The binding number of the storage, set once the compiler defines it.
  int binding = -1;
  // Whether the storage is one per thread block (scope "shared") rather than one per thread.
  bool shared() const { return buffer_->scope == "shared"; }

 private:
  ir::Buffer buffer_;
  Bound count_;                                  // Allocate
  std::vector<Bound> mins_, extents_, strides_;  // BufferRealize
  bool realized_;
};

// Runs body with fresh storage of plan bound (Allocate, BufferRealize outside thread blocks).
class AllocateCode final : public StmtCode {
 public:
  AllocateCode(std::unique_ptr<StoragePlan> plan, StmtPtr body)
      : plan_(std::move(plan)), body_(std::move(body)) {}
  void Exec(Frame& f) const override;

 private:
  std::unique_ptr<StoragePlan> plan_;
  StmtPtr body_;
};

}  // namespace tessel::interp::detail
