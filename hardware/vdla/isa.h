#pragma once

#include <absl/status/statusor.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

// VDLA's instruction set (PAPER.md section 3): 128-bit instructions the fetch module dispatches to
// three in-order modules, and 32-bit micro-ops that GEMM and ALU instructions loop over.
//
// Modules and their queues: LOAD of inputs and weights runs on the load module; LOAD of micro-ops
// and accumulators, GEMM, ALU and FINISH on the compute module; STORE of outputs on the store
// module. Each instruction's dependency flags pop a token from / push a token to the queue shared
// with the module before it ("prev": load for compute, compute for store) or after it ("next":
// compute for load, store for compute): four one-bit token queues, load->compute and
// compute->store (data ready) and compute->load and store->compute (buffer free).
//
// Buffers are addressed in entries (config.h): an input entry is a batch x block_in int8 block, a
// weight entry a block_out x block_in int8 block, an accumulator entry a batch x block_out int32
// block, and the output buffer (the accumulators narrowed to int8, written beside them) has the
// accumulator buffer's indices. DRAM is addressed in entries of the memory type moved.
namespace tessel::hardware::vdla {

enum class Opcode : uint8_t { kLoad = 0, kStore = 1, kGemm = 2, kAlu = 3, kFinish = 4 };
enum class MemType : uint8_t { kUop = 0, kWeight = 1, kInput = 2, kAccumulator = 3, kOutput = 4 };
// ALU operations on each accumulator element: dst = op(dst, src or immediate). kShr shifts right
// arithmetically by the operand (left when it is negative); kMul keeps the low 32 bits.
enum class AluOp : uint8_t { kMin = 0, kMax = 1, kAdd = 2, kShr = 3, kMul = 4 };

struct Deps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
  bool operator==(const Deps&) const = default;
};

// LOAD and STORE: a 2-D strided copy of y_size rows of x_size entries, row r starting at DRAM
// entry dram_base + r * x_stride, into (out of) consecutive buffer entries from sram_base. A LOAD
// of inputs or accumulators may pad: the tile written is (y_pad_0 + y_size + y_pad_1) rows of
// (x_pad_0 + x_size + x_pad_1) entries, zeros around the copied ones.
struct MemInsn {
  Opcode opcode = Opcode::kLoad;  // kLoad or kStore
  Deps deps;
  MemType type = MemType::kInput;
  uint32_t sram_base = 0;
  uint32_t dram_base = 0;
  uint32_t y_size = 0;
  uint32_t x_size = 0;
  uint32_t x_stride = 0;
  uint32_t y_pad_0 = 0, y_pad_1 = 0, x_pad_0 = 0, x_pad_1 = 0;
  bool operator==(const MemInsn&) const = default;
};

// GEMM: for i in [0, iter_out), j in [0, iter_in), every micro-op u in [uop_begin, uop_end):
//   acc[u.acc + i*dst_factor_out + j*dst_factor_in] (reset: = 0, else +=)
//       inp[u.inp + i*src_factor_out + j*src_factor_in] x wgt[u.wgt + i*wgt_factor_out + ...]^T
// and the output entry at the accumulator's index gets the result narrowed to int8 (low bits).
struct GemmInsn {
  Deps deps;
  bool reset = false;
  uint32_t uop_begin = 0, uop_end = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;
  bool operator==(const GemmInsn&) const = default;
};

// ALU: the same loops; dst = acc[u.acc + i*dst_factor_out + j*dst_factor_in] and src =
// acc[u.inp + i*src_factor_out + j*src_factor_in] (the micro-op's input field names an
// accumulator entry), element by element dst = op(dst, use_imm ? imm : src), and the output entry
// at dst's index gets the result narrowed.
struct AluInsn {
  Deps deps;
  AluOp op = AluOp::kAdd;
  bool use_imm = false;
  int32_t imm = 0;  // 16-bit signed
  uint32_t uop_begin = 0, uop_end = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  bool operator==(const AluInsn&) const = default;
};

// FINISH: the compute module's last instruction; the accelerator reports done when it retires, so
// a program orders it after every other instruction through tokens (the simulators refuse a
// program with instructions still to run when it retires).
struct FinishInsn {
  Deps deps;
  bool operator==(const FinishInsn&) const = default;
};

using Insn = std::variant<MemInsn, GemmInsn, AluInsn, FinishInsn>;

// A micro-op: accumulator, input and weight entry indices (for ALU: dst and src accumulators).
struct Uop {
  uint32_t acc = 0;
  uint32_t inp = 0;
  uint32_t wgt = 0;
  bool operator==(const Uop&) const = default;
};

// Field widths of the encodings, which bound the buffers a configuration may have (config.h).
inline constexpr int kUopAccBits = 11;
inline constexpr int kUopInpBits = 11;
inline constexpr int kUopWgtBits = 10;
inline constexpr int kUopIndexBits = 14;  // uop_begin; uop_end has one more
inline constexpr int kIterBits = 13;
inline constexpr int kSramBaseBits = 16;
inline constexpr int kDramBaseBits = 32;
inline constexpr int kSizeBits = 16;  // y_size, x_size, x_stride
inline constexpr int kPadBits = 4;
inline constexpr int kImmBits = 16;

// An instruction as the hardware reads it: bits 0-63 in words[0], 64-127 in words[1].
struct EncodedInsn {
  std::array<uint64_t, 2> words = {0, 0};
  bool operator==(const EncodedInsn&) const = default;
};

// InvalidArgument naming the field whose value does not fit its width.
absl::StatusOr<EncodedInsn> Encode(const Insn& insn);
// InvalidArgument for an unknown opcode, memory type or ALU operation.
absl::StatusOr<Insn> Decode(const EncodedInsn& bits);

absl::StatusOr<uint32_t> EncodeUop(const Uop& uop);
Uop DecodeUop(uint32_t bits);

// The module an instruction runs on; InvalidArgument when none can run it: a LOAD of outputs, a
// STORE of anything else, padding on a memory type that takes none (micro-ops, weights, stores),
// a token flag toward a neighbour its module does not have (load has no prev, store no next).
enum class Module : uint8_t { kLoad = 0, kCompute = 1, kStore = 2 };
absl::StatusOr<Module> Route(const Insn& insn);
const char* ModuleName(Module m);

// The DRAM a LOAD or STORE moves, in entries of `entry_bytes` bytes (the memory type's entry):
// from dram_base to its last entry dram_base + (y_size-1)*x_stride + (x_size-1), the largest it
// touches (rows x_stride apart, so not every entry between them); padding moves none. Both
// simulators refuse a LOAD or STORE whose extent ends past DRAM before it moves anything.
struct DramExtent {
  uint64_t first = 0, last = 0;  // entries
  uint64_t entry_bytes = 0;
  uint64_t begin_byte() const { return first * entry_bytes; }
  uint64_t end_byte() const { return (last + 1) * entry_bytes; }  // one past the last byte
  bool Passes(uint64_t dram_bytes) const { return end_byte() > dram_bytes; }
  bool operator==(const DramExtent&) const = default;
};
// nullopt when it moves nothing (y_size or x_size 0).
std::optional<DramExtent> DramExtentOf(const MemInsn& m, uint64_t entry_bytes);
// What both simulators say of an extent that passes DRAM's end: "DRAM entries 40-47 (bytes
// 640-767) beyond the 512 bytes of DRAM" ("DRAM entry 40 (bytes 640-655) ..." for one entry).
std::string DramOverrunMessage(const DramExtent& extent, uint64_t dram_bytes);

// One line for error messages and dumps: "LOAD inp sram=0 dram=16 y=1 x=4 stride=4 pad=0,0,1,1
// [pop_next]".
std::string ToString(const Insn& insn);

}  // namespace tessel::hardware::vdla
