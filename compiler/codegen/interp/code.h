#pragma once

#include <absl/status/status.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/codegen/interp/scalar.h"

// The executable form of a compiled PrimFunc: trees of code objects, one per IR node, that run
// against a Frame. The compiler (compiler.h) resolves every variable to a slot and every buffer
// to a binding number ahead of time, so running looks nothing up. Private to the interpreter.
//
// Faults: code that detects a fault (an out-of-bounds index, a division by zero, ...) calls
// Frame::Fail and carries on with a harmless value (0); statements stop at the next check of
// Frame::failed(), and a store or call never acts once a fault is recorded. Only the first fault
// is kept.
namespace tessel::interp::detail {

// One dimension of storage made by BufferRealize: indices run over [min, min + extent).
struct RealizedDim {
  int64_t min;
  int64_t extent;
  int64_t stride;
};

// Where a buffer's elements are while its scope runs: elements [0, size) from data, each of
// the buffer's dtype (lanes included).
struct BufferBinding {
  std::byte* data = nullptr;
  int64_t size = 0;
  const RealizedDim* region = nullptr;  // storage of a BufferRealize: one entry per dimension
};

// What all frames of one run share.
struct RunState {
  absl::Status status;
  bool failed = false;
};

// The state of one thread of execution. A block of GPU threads has one Frame per thread.
struct Frame {
  std::vector<Lane> slots;
  std::vector<BufferBinding> buffers;
  RunState* run = nullptr;
  // While a vector if_then_else evaluates one branch: the lanes that take it. Operations with
  // mask_lanes lanes skip the work (and the faults) of the other lanes.
  const uint8_t* mask = nullptr;
  int mask_lanes = 0;

  bool failed() const { return run->failed; }
  // Records a fault unless one is already recorded.
  void Fail(absl::Status status) {
    if (run->failed) return;
    run->failed = true;
    run->status = std::move(status);
  }
  bool LaneActive(int lanes, int lane) const {
    return mask == nullptr || lanes != mask_lanes || mask[lane] != 0;
  }
};

// Scratch space for the lanes of one vector value: inline up to 16 lanes, on the heap beyond.
class LaneBuffer {
 public:
  explicit LaneBuffer(int lanes)
      : heap_(lanes > kInline ? std::make_unique<Lane[]>(lanes) : nullptr) {}
  Lane* data() { return heap_ ? heap_.get() : inline_; }
  Lane& operator[](int i) { return data()[i]; }

 private:
  static constexpr int kInline = 16;
  Lane inline_[kInline];
  std::unique_ptr<Lane[]> heap_;
};

// A compiled expression with lanes() lanes.
class ExprCode {
 public:
  explicit ExprCode(int lanes) : lanes_(lanes) {}
  virtual ~ExprCode() = default;
  int lanes() const { return lanes_; }
  // The value of a one-lane expression.
  virtual Lane Eval(Frame& f) const = 0;
  // Writes the lanes() lanes of the value to out.
  virtual void EvalLanes(Frame& f, Lane* out) const = 0;

 private:
  const int lanes_;
};

// The base of one-lane expressions.
class ScalarCode : public ExprCode {
 public:
  ScalarCode() : ExprCode(1) {}
  void EvalLanes(Frame& f, Lane* out) const final { out[0] = Eval(f); }
};

// The base of vector expressions.
class VectorCode : public ExprCode {
 public:
  explicit VectorCode(int lanes) : ExprCode(lanes) {}
  Lane Eval(Frame& f) const final;
};

class StmtCode {
 public:
  virtual ~StmtCode() = default;
  virtual void Exec(Frame& f) const = 0;
};

// A statement that contains a barrier, run by all threads of a block together (block.h).
class BlockCode {
 public:
  virtual ~BlockCode() = default;
  virtual void Exec(std::vector<Frame>& threads) const = 0;
};

using ExprPtr = std::unique_ptr<const ExprCode>;
using StmtPtr = std::unique_ptr<const StmtCode>;
using BlockPtr = std::unique_ptr<const BlockCode>;

}  // namespace tessel::interp::detail
