#pragma once

// Internal to emit_program (emit_program.h has the contract): the emitter's state and its parts,
// defined one file each: the statements and buffers (emit_program.cc), integer expressions
// (emit_eval.cc), GEMM calls (emit_gemm.cc), element-wise nests on the ALU (emit_alu.cc),
// copies (emit_copy.cc).
#include <absl/status/statusor.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "compiler/codegen/vdla/affine_nest.h"
#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/codegen/vdla/intrinsics.h"
#include "compiler/codegen/vdla/tokens.h"
#include "compiler/ir/stmt.h"
#include "hardware/vdla/config.h"
#include "hardware/vdla/driver/program.h"
#include "hardware/vdla/isa.h"

namespace tessel::codegen::vdla::internal {

using hardware::vdla::AluInsn;
using hardware::vdla::AluOp;
using hardware::vdla::Config;
using hardware::vdla::GemmInsn;
using hardware::vdla::MemInsn;
using hardware::vdla::MemType;
using hardware::vdla::Opcode;
using hardware::vdla::Uop;

// An on-chip buffer as the emitter allocates it: entries of `elements` elements.
struct SramKind {
  Sram sram;
  const char* name;
  int64_t elements;  // per entry
  int64_t entries;   // the buffer's
};

// An allocation in a VDLA scope: its first entry.
struct Placed {
  const SramKind* kind;
  int64_t base;
  int64_t entries;
  std::string name;
};

class Emitter {
 public:
  Emitter(const ir::PrimFunc& f, const Config& config) : f_(f), config_(config) {
    kinds_[0] = {Sram::kInput, kInputScope, int64_t{config.batch} * config.block_in,
                 config.input_entries()};
    kinds_[1] = {Sram::kWeight, kWeightScope, int64_t{config.block_out} * config.block_in,
                 config.weight_entries()};
    kinds_[2] = {Sram::kAcc, kAccScope, int64_t{config.batch} * config.block_out,
                 config.accumulator_entries()};
    program_.name = f->name;
    writer_[0].assign(config.input_entries(), -1);
    writer_[1].assign(config.weight_entries(), -1);
  }

  absl::StatusOr<Program> Run();

 private:
  absl::Status Error(const std::string& what) const;
  // A schedule that needs more of an on-chip buffer than the configuration has
  // (ResourceExhausted, which tuning records as a resource limit).
  absl::Status Overflow(const std::string& what) const;

  // ---- Integer expressions under the loop variables' current values.
  absl::StatusOr<int64_t> Eval(const ir::Expr& e) const;

  absl::StatusOr<int64_t> EvalBinary(const ir::Expr& e) const;

  // ---- Statements: the host loops, run.
  absl::Status Visit(const ir::Stmt& s);

  absl::Status VisitFor(const ir::ForNode* loop);

  const SramKind* KindOf(const std::string& scope) const;

  absl::Status VisitAllocate(const ir::AllocateNode* alloc);

  // ---- GEMM calls: micro-ops, gathered into one instruction while they follow each other.
  struct TileArg {
    const Placed* placed;
    int64_t entry;  // within the buffer
  };

  absl::StatusOr<TileArg> Tile(const std::vector<ir::Expr>& args, size_t at, Sram want,
                               int64_t rows, int64_t columns) const;

  absl::Status VisitCall(const ir::Expr& e);

  // The pending micro-ops as GEMM instructions, one per set of LOADs their operands come from,
  // in the order those LOADs were issued: a GEMM waits only for its own operands, so with
  // virtual threads one thread's GEMM runs while the other's operands still load. (Reordering
  // is exact: the micro-ops only add products into accumulators, in integers.)
  absl::Status FlushGemm();

  // Loads `uops` into the micro-op buffer unless it holds them from an earlier instruction;
  // returns where they start there.
  absl::StatusOr<int64_t> LoadUops(const std::vector<Uop>& uops);

  // The entries [lo, hi] a field of `uops` names, as an access.
  static Access Span(const std::vector<Uop>& uops, uint32_t Uop::*field, Sram buffer, bool write);

  // An ALU or GEMM instruction's micro-ops: loads `uops` (LoadUops), points `insn` at them for
  // one pass, and returns the accesses every such instruction makes: the micro-ops read and the
  // accumulators named by Uop::acc written.
  template <typename I>
  absl::StatusOr<std::vector<Access>> OverUops(I& insn, const std::vector<Uop>& uops) {
    absl::StatusOr<int64_t> begin = LoadUops(uops);
    if (!begin.ok()) return begin.status();
    const int64_t end = *begin + static_cast<int64_t>(uops.size());
    insn.uop_begin = static_cast<uint32_t>(*begin);
    insn.uop_end = static_cast<uint32_t>(end);
    insn.iter_out = 1;
    insn.iter_in = 1;
    return std::vector<Access>{{Sram::kUop, *begin, end, false},
                               Span(uops, &Uop::acc, Sram::kAcc, true)};
  }

  // One GEMM instruction over `uops`.
  absl::Status EmitGemm(const std::vector<Uop>& uops);

  absl::Status Emit(hardware::vdla::Insn insn, std::vector<Access> accesses, int dram_of);

  // The loops of a nest under a pragma, outermost first, and the statements at its bottom: one,
  // or one per virtual thread when the pass interleaved the threads inside the nest.
  struct Nest {
    std::vector<const ir::ForNode*> loops;
    std::vector<ir::Stmt> bottom;
  };
  static Nest Unnest(const ir::Stmt& nest);

  NestEvaluator Evaluator();

  // ---- Element-wise nests on the accumulators: ALU instructions.
  absl::Status Alu(const ir::Stmt& nest);

  absl::Status AluOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
                      const ir::Stmt& s);

  // One ALU instruction: dst[i] = op(dst[i], imm or src[i]) for every i.
  absl::Status EmitAlu(AluOp op, bool use_imm, int32_t imm, const std::vector<uint32_t>& dst,
                       const std::vector<uint32_t>* src);

  // ---- Copy nests: LOAD and STORE.
  absl::Status Copy(const ir::Stmt& nest);

  absl::Status CopyOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
                       const ir::Stmt& s);

  // A copy whose reads outside `inside` are zeros: per tile, the rows and columns where the
  // condition holds must form one rectangle; around it the DMA writes zeros (up to 15 rows or
  // entries on each side, the ISA's pad fields).
  absl::Status PaddedLoad(const std::string& what, const std::vector<const ir::ForNode*>& loops,
                          const ir::Expr& dst_index, const ir::Expr& src_index,
                          const ir::Expr& inside, MemType type, const Placed& placed,
                          const ir::Buffer& dram, int param);

  // One LOAD or STORE of `insn` (its sizes, stride, pads and type set) between entries from `s0`
  // of `placed` (`tile` of them, pads included) and entries from `d0` of DRAM argument `param`:
  // checks both ranges, records which instruction last loaded the SRAM entries, and emits it.
  absl::Status Transfer(const std::string& what, hardware::vdla::MemInsn insn, const Placed& placed,
                        int64_t s0, int64_t tile, const ir::Buffer& dram, int param, int64_t d0);

  const ir::PrimFunc& f_;
  const Config& config_;
  SramKind kinds_[3];
  Program program_;
  TokenPlanner planner_;
  std::vector<int> dram_of_;
  std::unordered_map<const ir::VarNode*, int64_t> env_;
  std::unordered_map<const ir::VarNode*, int> params_;
  std::unordered_map<const ir::VarNode*, Placed> placed_;
  int64_t used_[3] = {0, 0, 0};
  int64_t high_[3] = {0, 0, 0};
  std::vector<Uop> gemm_;
  bool gemm_reset_ = false;
  // The instruction that last loaded each input and weight entry.
  std::vector<int64_t> writer_[2];
  std::map<std::vector<Uop>, int64_t, bool (*)(const std::vector<Uop>&, const std::vector<Uop>&)>
      uop_cache_{[](const std::vector<Uop>& a, const std::vector<Uop>& b) {
        return std::lexicographical_compare(
            a.begin(), a.end(), b.begin(), b.end(), [](const Uop& x, const Uop& y) {
              return std::tie(x.acc, x.inp, x.wgt) < std::tie(y.acc, y.inp, y.wgt);
            });
      }};
  int64_t uop_used_ = 0;
  int64_t uop_high_ = 0;
};

}  // namespace tessel::codegen::vdla::internal
