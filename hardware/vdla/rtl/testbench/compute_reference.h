#pragma once

// The compute module's instructions as isa.h defines them, for the compute bench: LOADs of
// micro-ops and accumulators, GEMM, ALU and FINISH on buffers of the sizes the bench's model was
// Verilated with, each run giving the output-buffer writes it makes (in the ISA's loop order) and
// the first buffer index past its buffer, in the order the functional simulator checks them, or a
// LOAD's last DRAM entry when it reads past DRAM's end (after its buffer range is checked).

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "hardware/vdla/isa.h"
#include "hardware/vdla/rtl/testbench/Vvdla_compute_params.h"

namespace tessel::hardware::vdla::testbench {

inline constexpr int kBatch = verilated::kBATCH, kBlockIn = verilated::kBLOCK_IN;
inline constexpr int kBlockOut = verilated::kBLOCK_OUT;
inline constexpr uint32_t kInpDepth = verilated::kINP_DEPTH, kWgtDepth = verilated::kWGT_DEPTH;
inline constexpr uint32_t kAccDepth = verilated::kACC_DEPTH, kUopDepth = verilated::kUOP_DEPTH;
inline constexpr int kAccElems = kBatch * kBlockOut;  // int32 in an accumulator entry
inline constexpr int kInpBytes = kBatch * kBlockIn, kWgtBytes = kBlockOut * kBlockIn;
inline constexpr int kAccBytes = kAccElems * 4;

// Buffers as the module's err_buffer numbers them (vdla_pkg's BUF_*); kBufDram: DRAM.
enum Buffer { kBufInput = 0, kBufWeight = 1, kBufAcc = 2, kBufUop = 3, kBufDram = 5 };

struct IndexError {
  int buffer;
  uint32_t index;
  bool operator==(const IndexError&) const = default;
};

// An output-buffer write: the entry and its batch x block_out bytes (the accumulators' low bits).
struct OutWrite {
  uint32_t entry;
  std::array<uint8_t, kAccElems> data;
};

struct Outcome {
  std::vector<OutWrite> writes;  // those made before any error
  int gemm_steps = 0;            // micro-ops of a GEMM without reset completed
  std::optional<IndexError> error;
};

class ComputeReference {
 public:
  ComputeReference();

  // Runs `insn`, changing the buffers, unless `dry`.
  Outcome Run(const Insn& insn, bool dry = false);

  // DRAM (little-endian entries; a LOAD past its end is an error, though a micro-op's beat may
  // reach past it: those bytes read as zeros) and the buffers.
  std::vector<uint8_t> dram;
  std::vector<int8_t> inp, wgt;  // entry-major: input (b, k) at b*block_in + k, weight (o, k)
  std::vector<int32_t> acc;      // entry-major: (b, o) at b*block_out + o
  std::vector<uint32_t> uop;

 private:
  Outcome Load(const MemInsn& m, bool dry);
  Outcome Gemm(const GemmInsn& g, bool dry);
  Outcome Alu(const AluInsn& a, bool dry);
  uint8_t DramByte(uint64_t addr) const { return addr < dram.size() ? dram[addr] : 0; }
  OutWrite Narrowed(uint32_t entry) const;
};

// What ALU operation `op` gives for dst a and operand b: isa.h's operations on int32, wrapping;
// shifts by more than 31 either way shift by 31 (as the functional simulator defines them).
int32_t AluApply(AluOp op, int32_t a, int32_t b);

}  // namespace tessel::hardware::vdla::testbench
