#pragma once

#include "compiler/te/tensor_intrin.h"
#include "hardware/vdla/config.h"

// VDLA as a schedule sees it: the scopes of its on-chip buffers, the pragma that turns a copy
// nest into DMA instructions, and its GEMM as a tensor intrinsic that `tensorize` reaches.
//
// A schedule for VDLA keeps every intermediate tensor in one of the three scopes (inputs and
// weights through cache_read, the accumulators through set_scope or cache_write), marks the
// outermost loop of each copy between DRAM and a buffer with pragma(kDmaCopy), and tensorizes the
// computation on GemmIntrin. emit_program.h turns the lowered function into instructions.
namespace tessel::codegen::vdla {

inline constexpr char kInputScope[] = "vdla.inp";   // input entries: batch x block_in int8
inline constexpr char kWeightScope[] = "vdla.wgt";  // weight entries: block_out x block_in int8
inline constexpr char kAccScope[] = "vdla.acc";     // accumulator entries: batch x block_out int32

// Schedule::pragma's key for a copy nest the DMA moves: LOAD into a buffer, STORE out of the
// accumulators (the store module writes them narrowed to int8, so a STORE's value is
// cast(int8, acc)).
inline constexpr char kDmaCopy[] = "dma_copy";

// Schedule::pragma's key for an element-wise nest computed on the accumulators: its value, a
// chain of add, min, max, multiply and shift right with immediates or other accumulators
// (alu_chain.h), becomes ALU instructions in place on the destination's entries.
inline constexpr char kAlu[] = "alu";

// The calls GemmIntrin's implementation makes, call_extern(name, args...), each buffer given as
// (its tile's first element as a load, the tile's row stride, its column stride), the written
// accumulators first (what the virtual-thread pass takes a call to write):
//   kGemmCall(acc..., inp..., wgt...): acc[b, o] += sum_i inp[b, i] * wgt[o, i]
//   kGemmResetCall(acc...): acc[b, o] = 0
inline constexpr char kGemmCall[] = "vdla.gemm";
inline constexpr char kGemmResetCall[] = "vdla.gemm_reset";

// One GEMM step on one entry of each buffer: acc[b, o] = sum_i int32(inp[b, i]) * int32(wgt[o, i])
// over batch x block_out outputs and block_in products each; a reduction, so tensorize splits it
// into a reset and updates when the schedule's reduction continues outside the tile.
te::TensorIntrin GemmIntrin(const hardware::vdla::Config& config);

}  // namespace tessel::codegen::vdla
