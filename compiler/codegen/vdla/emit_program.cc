#include "compiler/codegen/vdla/emit_program.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "compiler/codegen/vdla/affine_nest.h"
#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/intrinsics.h"
#include "compiler/codegen/vdla/tokens.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla {
namespace {

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

  absl::StatusOr<Program> Run() {
    for (size_t i = 0; i < f_->buffers.size(); ++i) {
      const ir::Buffer& b = f_->buffers[i];
      int64_t elements = 1;
      for (const ir::Expr& d : b->shape) {
        absl::StatusOr<int64_t> n = Eval(d);
        if (!n.ok()) return n.status();
        elements *= *n;
      }
      params_[b->data.get()] = static_cast<int>(i);
      program_.params.push_back(b->name);
      program_.param_bytes.push_back(elements * b->dtype.bytes());
    }
    TESSEL_RETURN_IF_ERROR(Visit(f_->body));
    TESSEL_RETURN_IF_ERROR(FlushGemm());
    absl::StatusOr<std::vector<hardware::vdla::Insn>> insns = planner_.Finish();
    if (!insns.ok()) return insns.status();
    program_.insns = *std::move(insns);
    dram_of_.push_back(Program::kNoDram);
    program_.dram_of = std::move(dram_of_);
    program_.uop_entries = uop_high_;
    return std::move(program_);
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(f_->name, ": ", what));
  }

  // ---- Integer expressions under the loop variables' current values.
  absl::StatusOr<int64_t> Eval(const ir::Expr& e) const {
    if (const auto* imm = e.as<ir::IntImmNode>()) return imm->value;
    if (const auto* var = e.as<ir::VarNode>()) {
      auto it = env_.find(var);
      if (it == env_.end()) return Error(absl::StrCat("variable ", var->name, " has no value"));
      return it->second;
    }
    if (const auto* cast = e.as<ir::CastNode>()) {
      if (!cast->dtype.is_int() && !cast->dtype.is_uint()) {
        return Error(absl::StrCat("not an integer: ", ir::ToString(e)));
      }
      return Eval(cast->value);
    }
    if (const auto* select = e.as<ir::SelectNode>()) {
      absl::StatusOr<int64_t> c = Eval(select->condition);
      if (!c.ok()) return c;
      return Eval(*c ? select->true_value : select->false_value);
    }
    if (const auto* no = e.as<ir::NotNode>()) {
      absl::StatusOr<int64_t> a = Eval(no->a);
      if (!a.ok()) return a;
      return int64_t{*a == 0};
    }
    return EvalBinary(e);
  }

  absl::StatusOr<int64_t> EvalBinary(const ir::Expr& e) const {
    auto both = [&](const auto* node) -> absl::StatusOr<std::pair<int64_t, int64_t>> {
      absl::StatusOr<int64_t> a = Eval(node->a);
      if (!a.ok()) return a.status();
      absl::StatusOr<int64_t> b = Eval(node->b);
      if (!b.ok()) return b.status();
      return std::make_pair(*a, *b);
    };
#define VDLA_BINARY(Node, expr)                                  \
  if (const auto* node = e.as<ir::Node>()) {                     \
    absl::StatusOr<std::pair<int64_t, int64_t>> ab = both(node); \
    if (!ab.ok()) return ab.status();                            \
    const int64_t a = ab->first, b = ab->second;                 \
    return static_cast<int64_t>(expr);                           \
  }
    VDLA_BINARY(AddNode, a + b)
    VDLA_BINARY(SubNode, a - b)
    VDLA_BINARY(MulNode, a * b)
    VDLA_BINARY(MinNode, std::min(a, b))
    VDLA_BINARY(MaxNode, std::max(a, b))
    VDLA_BINARY(EQNode, a == b)
    VDLA_BINARY(NENode, a != b)
    VDLA_BINARY(LTNode, a < b)
    VDLA_BINARY(LENode, a <= b)
    VDLA_BINARY(GTNode, a > b)
    VDLA_BINARY(GENode, a >= b)
    VDLA_BINARY(AndNode, a && b)
    VDLA_BINARY(OrNode, a || b)
#undef VDLA_BINARY
    auto divide = [&](const auto* node, bool floor, bool quotient) -> absl::StatusOr<int64_t> {
      absl::StatusOr<std::pair<int64_t, int64_t>> ab = both(node);
      if (!ab.ok()) return ab.status();
      const auto [a, b] = *ab;
      if (b == 0) return Error(absl::StrCat("division by zero in ", ir::ToString(e)));
      int64_t q = a / b, r = a % b;
      if (floor && r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return quotient ? q : r;
    };
    if (const auto* n = e.as<ir::DivNode>()) return divide(n, false, true);
    if (const auto* n = e.as<ir::ModNode>()) return divide(n, false, false);
    if (const auto* n = e.as<ir::FloorDivNode>()) return divide(n, true, true);
    if (const auto* n = e.as<ir::FloorModNode>()) return divide(n, true, false);
    return Error(absl::StrCat("the accelerator's program cannot compute ", ir::ToString(e)));
  }

  // ---- Statements: the host loops, run.
  absl::Status Visit(const ir::Stmt& s) {
    if (!s.defined()) return absl::OkStatus();
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      for (const ir::Stmt& part : seq->seq) TESSEL_RETURN_IF_ERROR(Visit(part));
      return absl::OkStatus();
    }
    if (const auto* loop = s.as<ir::ForNode>()) return VisitFor(loop);
    if (const auto* attr = s.as<ir::AttrStmtNode>()) {
      if (attr->key == absl::StrCat("pragma_", kDmaCopy)) return Copy(attr->body);
      if (attr->key == absl::StrCat("pragma_", kAlu)) return Alu(attr->body);
      return Visit(attr->body);
    }
    if (const auto* alloc = s.as<ir::AllocateNode>()) return VisitAllocate(alloc);
    if (const auto* let = s.as<ir::LetStmtNode>()) {
      absl::StatusOr<int64_t> v = Eval(let->value);
      if (!v.ok()) return v.status();
      env_[let->var.get()] = *v;
      TESSEL_RETURN_IF_ERROR(Visit(let->body));
      env_.erase(let->var.get());
      return absl::OkStatus();
    }
    if (const auto* branch = s.as<ir::IfThenElseNode>()) {
      absl::StatusOr<int64_t> c = Eval(branch->condition);
      if (!c.ok()) return c.status();
      return Visit(*c ? branch->then_case : branch->else_case);
    }
    if (const auto* check = s.as<ir::AssertStmtNode>()) {
      absl::StatusOr<int64_t> c = Eval(check->condition);
      if (!c.ok()) return c.status();
      if (*c == 0) return Error(check->message);
      return Visit(check->body);
    }
    if (const auto* eval = s.as<ir::EvaluateNode>()) return VisitCall(eval->value);
    if (const auto* store = s.as<ir::BufferStoreNode>()) {
      return Error(absl::StrCat(
          "buffer ", store->buffer->name,
          " is written outside a copy and a GEMM, which the accelerator cannot run (mark a copy "
          "with pragma dma_copy, tensorize a computation): ",
          ir::ToString(s)));
    }
    return Error(absl::StrCat("the accelerator cannot run ", ir::ToString(s)));
  }

  absl::Status VisitFor(const ir::ForNode* loop) {
    if (loop->for_kind != ir::ForKind::kSerial && loop->for_kind != ir::ForKind::kUnrolled) {
      return Error(absl::StrCat("loop ", loop->loop_var->name, " is ",
                                ir::ForKindName(loop->for_kind), "; VDLA runs serial loops only"));
    }
    absl::StatusOr<int64_t> min = Eval(loop->min);
    if (!min.ok()) return min.status();
    absl::StatusOr<int64_t> extent = Eval(loop->extent);
    if (!extent.ok()) return extent.status();
    for (int64_t i = *min; i < *min + *extent; ++i) {
      env_[loop->loop_var.get()] = i;
      TESSEL_RETURN_IF_ERROR(Visit(loop->body));
    }
    env_.erase(loop->loop_var.get());
    return absl::OkStatus();
  }

  const SramKind* KindOf(const std::string& scope) const {
    for (const SramKind& k : kinds_) {
      if (scope == k.name) return &k;
    }
    return nullptr;
  }

  absl::Status VisitAllocate(const ir::AllocateNode* alloc) {
    const ir::Buffer& b = alloc->buffer;
    const SramKind* kind = KindOf(b->scope);
    if (kind == nullptr) {
      return Error(absl::StrCat("buffer ", b->name, " is allocated in scope '", b->scope,
                                "'; a VDLA program keeps its intermediates in ", kInputScope, ", ",
                                kWeightScope, " or ", kAccScope));
    }
    absl::StatusOr<int64_t> elements = Eval(b->shape.at(0));
    if (!elements.ok()) return elements.status();
    const int64_t entries = (*elements + kind->elements - 1) / kind->elements;
    int64_t& used = used_[static_cast<int>(kind->sram)];
    if (used + entries > kind->entries) {
      return Error(absl::StrCat("buffer ", b->name, " needs ", entries, " entries of ", kind->name,
                                " beside ", used, " in use, and it holds ", kind->entries,
                                " (choose smaller tiles)"));
    }
    placed_[b->data.get()] = Placed{kind, used, entries, b->name};
    used += entries;
    int64_t& high = high_[static_cast<int>(kind->sram)];
    high = std::max(high, used);
    program_.input_entries = high_[0];
    program_.weight_entries = high_[1];
    program_.acc_entries = high_[2];
    TESSEL_RETURN_IF_ERROR(Visit(alloc->body));
    used -= entries;
    placed_.erase(b->data.get());
    return absl::OkStatus();
  }

  // ---- GEMM calls: micro-ops, gathered into one instruction while they follow each other.
  struct TileArg {
    const Placed* placed;
    int64_t entry;  // within the buffer
  };

  absl::StatusOr<TileArg> Tile(const std::vector<ir::Expr>& args, size_t at, Sram want,
                               int64_t rows, int64_t columns) const {
    const auto* first = args.at(at).as<ir::BufferLoadNode>();
    auto it = first && first->indices.size() == 1 ? placed_.find(first->buffer->data.get())
                                                  : placed_.end();
    if (it == placed_.end() || it->second.kind->sram != want) {
      return Error(absl::StrCat("a GEMM operand (", ir::ToString(args.at(at)),
                                ") is not in the VDLA buffer it must be in"));
    }
    absl::StatusOr<int64_t> offset = Eval(first->indices[0]);
    if (!offset.ok()) return offset.status();
    absl::StatusOr<int64_t> row = Eval(args.at(at + 1));
    if (!row.ok()) return row.status();
    absl::StatusOr<int64_t> column = Eval(args.at(at + 2));
    if (!column.ok()) return column.status();
    const int64_t elements = it->second.kind->elements;
    if (*column != 1 || (rows > 1 && *row != columns) || *offset % elements != 0) {
      return Error(absl::StrCat("the GEMM's tile of ", it->second.name, " at element ", *offset,
                                " (strides ", *row, ", ", *column, ") is not one whole entry of ",
                                it->second.kind->name));
    }
    return TileArg{&it->second, *offset / elements};
  }

  absl::Status VisitCall(const ir::Expr& e) {
    const auto* call = e.as<ir::CallNode>();
    const ir::StringImmNode* name =
        call && call->op == ir::Intrinsic::kCallExtern && !call->args.empty()
            ? call->args[0].as<ir::StringImmNode>()
            : nullptr;
    const bool reset = name && name->value == kGemmResetCall;
    if (!name || (!reset && name->value != kGemmCall)) {
      return Error(absl::StrCat("the accelerator cannot run ", ir::ToString(e)));
    }
    absl::StatusOr<TileArg> acc = Tile(call->args, 1, Sram::kAcc, config_.batch, config_.block_out);
    if (!acc.ok()) return acc.status();
    Uop uop;
    uop.acc = static_cast<uint32_t>(acc->placed->base + acc->entry);
    if (!reset) {
      absl::StatusOr<TileArg> inp =
          Tile(call->args, 4, Sram::kInput, config_.batch, config_.block_in);
      if (!inp.ok()) return inp.status();
      absl::StatusOr<TileArg> wgt =
          Tile(call->args, 7, Sram::kWeight, config_.block_out, config_.block_in);
      if (!wgt.ok()) return wgt.status();
      uop.inp = static_cast<uint32_t>(inp->placed->base + inp->entry);
      uop.wgt = static_cast<uint32_t>(wgt->placed->base + wgt->entry);
      program_.macs += config_.macs_per_cycle();
    }
    if (!gemm_.empty() &&
        (reset != gemm_reset_ || static_cast<int64_t>(gemm_.size()) >= config_.uop_entries())) {
      TESSEL_RETURN_IF_ERROR(FlushGemm());
    }
    gemm_reset_ = reset;
    gemm_.push_back(uop);
    return absl::OkStatus();
  }

  // The pending micro-ops as GEMM instructions, one per set of LOADs their operands come from,
  // in the order those LOADs were issued: a GEMM waits only for its own operands, so with
  // virtual threads one thread's GEMM runs while the other's operands still load. (Reordering
  // is exact: the micro-ops only add products into accumulators, in integers.)
  absl::Status FlushGemm() {
    if (gemm_.empty()) return absl::OkStatus();
    std::map<std::pair<int64_t, int64_t>, std::vector<Uop>> groups;
    for (const Uop& u : gemm_) {
      const int64_t inp = gemm_reset_ ? -1 : writer_[0][u.inp];
      const int64_t wgt = gemm_reset_ ? -1 : writer_[1][u.wgt];
      groups[{std::max(inp, wgt), std::min(inp, wgt)}].push_back(u);
    }
    gemm_.clear();
    for (auto& [writers, uops] : groups) TESSEL_RETURN_IF_ERROR(EmitGemm(uops));
    return absl::OkStatus();
  }

  // Loads `uops` into the micro-op buffer unless it holds them from an earlier instruction;
  // returns where they start there.
  absl::StatusOr<int64_t> LoadUops(const std::vector<Uop>& uops) {
    const int64_t n = static_cast<int64_t>(uops.size());
    auto cached = uop_cache_.find(uops);
    if (cached != uop_cache_.end()) return cached->second;
    if (uop_used_ + n > config_.uop_entries()) {
      uop_cache_.clear();  // start over: compute runs in order, so overwriting is safe
      uop_used_ = 0;
    }
    MemInsn load;
    load.opcode = Opcode::kLoad;
    load.type = MemType::kUop;
    load.sram_base = static_cast<uint32_t>(uop_used_);
    load.dram_base = static_cast<uint32_t>(program_.uops.size());
    load.y_size = 1;
    load.x_size = static_cast<uint32_t>(n);
    load.x_stride = static_cast<uint32_t>(n);
    program_.uops.insert(program_.uops.end(), uops.begin(), uops.end());
    TESSEL_RETURN_IF_ERROR(
        Emit(load, {{Sram::kUop, uop_used_, uop_used_ + n, true}}, Program::kUopImage));
    const int64_t begin = uop_used_;
    uop_cache_.emplace(uops, begin);
    uop_used_ += n;
    uop_high_ = std::max(uop_high_, uop_used_);
    return begin;
  }

  // The entries [lo, hi] a field of `uops` names, as an access.
  static Access Span(const std::vector<Uop>& uops, uint32_t Uop::*field, Sram buffer, bool write) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const Uop& u : uops) {
      lo = std::min<int64_t>(lo, u.*field);
      hi = std::max<int64_t>(hi, u.*field);
    }
    return {buffer, lo, hi + 1, write};
  }

  // One GEMM instruction over `uops`.
  absl::Status EmitGemm(const std::vector<Uop>& uops) {
    const int64_t n = static_cast<int64_t>(uops.size());
    TESSEL_ASSIGN_OR_RETURN(const int64_t begin, LoadUops(uops));
    GemmInsn gemm;
    gemm.reset = gemm_reset_;
    gemm.uop_begin = static_cast<uint32_t>(begin);
    gemm.uop_end = static_cast<uint32_t>(begin + n);
    gemm.iter_out = 1;
    gemm.iter_in = 1;
    std::vector<Access> accesses = {{Sram::kUop, begin, begin + n, false},
                                    Span(uops, &Uop::acc, Sram::kAcc, true)};
    if (!gemm_reset_) {
      accesses.push_back(Span(uops, &Uop::inp, Sram::kInput, false));
      accesses.push_back(Span(uops, &Uop::wgt, Sram::kWeight, false));
    }
    return Emit(gemm, std::move(accesses), Program::kNoDram);
  }

  absl::Status Emit(hardware::vdla::Insn insn, std::vector<Access> accesses, int dram_of) {
    TESSEL_RETURN_IF_ERROR(planner_.Add(std::move(insn), std::move(accesses)));
    dram_of_.push_back(dram_of);
    return absl::OkStatus();
  }

  // The loops of a nest under a pragma, outermost first, and the statements at its bottom: one,
  // or one per virtual thread when the pass interleaved the threads inside the nest.
  struct Nest {
    std::vector<const ir::ForNode*> loops;
    std::vector<ir::Stmt> bottom;
  };
  static Nest Unnest(const ir::Stmt& nest) {
    Nest out;
    ir::Stmt s = nest;
    while (true) {
      if (const auto* loop = s.as<ir::ForNode>()) {
        out.loops.push_back(loop);
        s = loop->body;
      } else if (const auto* attr = s.as<ir::AttrStmtNode>()) {
        s = attr->body;
      } else {
        break;
      }
    }
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      out.bottom = seq->seq;
    } else {
      out.bottom = {s};
    }
    return out;
  }

  NestEvaluator Evaluator() {
    return {[this](const ir::Expr& e) { return Eval(e); },
            [this](const ir::VarNode* v, std::optional<int64_t> value) {
              if (value) {
                env_[v] = *value;
              } else {
                env_.erase(v);
              }
            }};
  }

  // ---- Element-wise nests on the accumulators: ALU instructions.
  absl::Status Alu(const ir::Stmt& nest) {
    TESSEL_RETURN_IF_ERROR(FlushGemm());
    const Nest n = Unnest(nest);
    for (const ir::Stmt& s : n.bottom) TESSEL_RETURN_IF_ERROR(AluOne(nest, n.loops, s));
    return absl::OkStatus();
  }

  absl::Status AluOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
                      const ir::Stmt& s) {
    const auto* store = s.as<ir::BufferStoreNode>();
    if (store == nullptr || store->indices.size() != 1) {
      return Error(absl::StrCat("the nest under pragma ", kAlu,
                                " is not an element-wise store: ", ir::ToString(nest)));
    }
    const std::string& name = store->buffer->name;
    auto dst = placed_.find(store->buffer->data.get());
    if (dst == placed_.end() || dst->second.kind->sram != Sram::kAcc) {
      return Error(absl::StrCat("buffer ", name, " is computed by the ALU but is not in ",
                                kAccScope, ": the ALU works on accumulators"));
    }
    absl::StatusOr<std::vector<AluStep>> steps = AluChain(store->value);
    if (!steps.ok()) return Error(absl::StrCat(name, ": ", steps.status().message()));
    // The destination's index, then each step's source's.
    std::vector<ir::Expr> indices = {store->indices[0]};
    std::vector<const Placed*> places = {&dst->second};
    for (const AluStep& step : *steps) {
      if (step.src == nullptr) continue;
      auto it = placed_.find(step.src->buffer->data.get());
      if (it == placed_.end() || it->second.kind->sram != Sram::kAcc ||
          step.src->indices.size() != 1) {
        return Error(
            absl::StrCat(name, ": the ALU reads accumulators only, not ", step.src->buffer->name));
      }
      indices.push_back(step.src->indices[0]);
      places.push_back(&it->second);
    }
    absl::StatusOr<AffineNest> affine = AnalyseNest(loops, indices, Evaluator());
    if (affine.ok()) affine = InEntries(*affine, kinds_[2].elements);
    if (!affine.ok()) {
      return Error(absl::StrCat("the element-wise nest of ", name, " ", affine.status().message()));
    }
    // Every entry the nest visits: the destination's and each source's.
    std::vector<std::vector<uint32_t>> entries(indices.size());
    std::vector<int64_t> at(affine->dims.size(), 0);
    while (true) {
      for (size_t k = 0; k < indices.size(); ++k) {
        int64_t e = affine->base[k];
        for (size_t d = 0; d < at.size(); ++d) e += at[d] * affine->dims[d].steps[k];
        if (e < 0 || e >= places[k]->entries) {
          return Error(absl::StrCat("the element-wise nest of ", name, " reaches entry ", e, " of ",
                                    places[k]->name, ", which has ", places[k]->entries));
        }
        entries[k].push_back(static_cast<uint32_t>(places[k]->base + e));
      }
      if (!NextIteration(affine->dims, at)) break;
    }
    if (static_cast<int64_t>(entries[0].size()) > config_.uop_entries()) {
      return Error(absl::StrCat("the element-wise nest of ", name, " covers ", entries[0].size(),
                                " entries, more micro-ops than the buffer's ",
                                config_.uop_entries()));
    }
    size_t source = 1;
    for (const AluStep& step : *steps) {
      const std::vector<uint32_t>* src = step.src != nullptr ? &entries[source++] : nullptr;
      if (!step.move) {
        TESSEL_RETURN_IF_ERROR(EmitAlu(step.op, step.use_imm, step.imm, entries[0], src));
      } else if (*src != entries[0]) {
        // A move: dst = dst * 0, then dst = dst + src.
        TESSEL_RETURN_IF_ERROR(EmitAlu(AluOp::kMul, true, 0, entries[0], nullptr));
        TESSEL_RETURN_IF_ERROR(EmitAlu(AluOp::kAdd, false, 0, entries[0], src));
      }
    }
    return absl::OkStatus();
  }

  // One ALU instruction: dst[i] = op(dst[i], imm or src[i]) for every i.
  absl::Status EmitAlu(AluOp op, bool use_imm, int32_t imm, const std::vector<uint32_t>& dst,
                       const std::vector<uint32_t>* src) {
    std::vector<Uop> uops;
    for (size_t i = 0; i < dst.size(); ++i) {
      uops.push_back({dst[i], src != nullptr ? (*src)[i] : dst[i], 0});
    }
    const int64_t n = static_cast<int64_t>(uops.size());
    TESSEL_ASSIGN_OR_RETURN(const int64_t begin, LoadUops(uops));
    AluInsn alu;
    alu.op = op;
    alu.use_imm = use_imm;
    alu.imm = imm;
    alu.uop_begin = static_cast<uint32_t>(begin);
    alu.uop_end = static_cast<uint32_t>(begin + n);
    alu.iter_out = 1;
    alu.iter_in = 1;
    std::vector<Access> accesses = {{Sram::kUop, begin, begin + n, false},
                                    Span(uops, &Uop::acc, Sram::kAcc, true)};
    if (src != nullptr) accesses.push_back(Span(uops, &Uop::inp, Sram::kAcc, false));
    return Emit(alu, std::move(accesses), Program::kNoDram);
  }

  // ---- Copy nests: LOAD and STORE.
  absl::Status Copy(const ir::Stmt& nest) {
    TESSEL_RETURN_IF_ERROR(FlushGemm());
    const Nest n = Unnest(nest);
    for (const ir::Stmt& s : n.bottom) TESSEL_RETURN_IF_ERROR(CopyOne(nest, n.loops, s));
    return absl::OkStatus();
  }

  absl::Status CopyOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
                       const ir::Stmt& s) {
    const auto* store = s.as<ir::BufferStoreNode>();
    ir::Expr value = store ? store->value : ir::Expr();
    const ir::CastNode* narrowing = value.defined() ? value.as<ir::CastNode>() : nullptr;
    if (narrowing != nullptr) value = narrowing->value;
    // A padded copy: if_then_else(inside, load, 0).
    ir::Expr inside;
    if (const auto* guard = value.defined() ? value.as<ir::CallNode>() : nullptr;
        guard != nullptr && guard->op == ir::Intrinsic::kIfThenElse) {
      const int64_t* zero = ir::AsConstInt(guard->args[2]);
      if (zero == nullptr || *zero != 0) {
        return Error(absl::StrCat("the nest under pragma ", kDmaCopy,
                                  " pads with something else than zeros: ", ir::ToString(nest)));
      }
      inside = guard->args[0];
      value = guard->args[1];
    }
    const auto* load = value.defined() ? value.as<ir::BufferLoadNode>() : nullptr;
    if (load == nullptr || store->indices.size() != 1 || load->indices.size() != 1) {
      return Error(absl::StrCat("the nest under pragma ", kDmaCopy,
                                " is not a copy of one buffer into another: ", ir::ToString(nest)));
    }
    const ir::Buffer& dst = store->buffer;
    const ir::Buffer& src = load->buffer;
    const SramKind* into = KindOf(dst->scope);
    const SramKind* from = KindOf(src->scope);
    const std::string what = absl::StrCat("the copy of ", src->name, " into ", dst->name);
    MemType type;
    if (into != nullptr && from == nullptr && narrowing == nullptr) {
      type = into->sram == Sram::kInput    ? MemType::kInput
             : into->sram == Sram::kWeight ? MemType::kWeight
                                           : MemType::kAccumulator;
    } else if (from != nullptr && from->sram == Sram::kAcc && into == nullptr &&
               narrowing != nullptr && dst->dtype == ir::DataType::Int(config_.input_bits)) {
      type = MemType::kOutput;
    } else {
      return Error(absl::StrCat(what, " is not one the DMA makes: it loads DRAM into ", kInputScope,
                                ", ", kWeightScope, " or ", kAccScope, ", and stores ", kAccScope,
                                " narrowed (cast to int8) into DRAM"));
    }
    const bool is_load = type != MemType::kOutput;
    const ir::Buffer& dram = is_load ? src : dst;
    const ir::Buffer& sram = is_load ? dst : src;
    auto param = params_.find(dram->data.get());
    if (param == params_.end()) {
      return Error(absl::StrCat(what, ": ", dram->name, " is not an argument of the function"));
    }
    const Placed& placed = placed_.at(sram->data.get());
    const int64_t elements = placed.kind->elements;
    if (inside.defined()) {
      if (type != MemType::kInput && type != MemType::kAccumulator) {
        return Error(absl::StrCat(what,
                                  " is padded, and the DMA pads only inputs and "
                                  "accumulators"));
      }
      return PaddedLoad(what, loops, store->indices[0], load->indices[0], inside, type, placed,
                        dram, param->second);
    }

    // The nest's element indices as an affine map of its loops, in entries.
    absl::StatusOr<AffineNest> affine =
        AnalyseNest(loops, {store->indices[0], load->indices[0]}, Evaluator());
    if (affine.ok()) affine = InEntries(*affine, elements);
    if (!affine.ok()) return Error(absl::StrCat(what, " ", affine.status().message()));
    const std::vector<AffineDim>& entries = affine->dims;
    const int64_t sram0 = affine->base[is_load ? 0 : 1];
    const int64_t dram0 = affine->base[is_load ? 1 : 0];
    auto sram_step = [&](const AffineDim& d) { return d.steps[is_load ? 0 : 1]; };
    auto dram_step = [&](const AffineDim& d) { return d.steps[is_load ? 1 : 0]; };

    // x: the innermost entries; y: the next loop when it continues x in the buffer.
    MemInsn insn;
    insn.opcode = is_load ? Opcode::kLoad : Opcode::kStore;
    insn.type = type;
    insn.x_size = static_cast<uint32_t>(entries[0].extent);
    insn.x_stride = insn.x_size;
    insn.y_size = 1;
    size_t outer_from = 1;
    if (entries.size() > 1 && sram_step(entries[1]) == entries[0].extent &&
        dram_step(entries[1]) >= entries[0].extent) {
      insn.y_size = static_cast<uint32_t>(entries[1].extent);
      insn.x_stride = static_cast<uint32_t>(dram_step(entries[1]));
      outer_from = 2;
    }
    // The remaining loops: one instruction per iteration.
    std::vector<AffineDim> outer(entries.begin() + outer_from, entries.end());
    const int64_t tile = int64_t{insn.y_size} * insn.x_size;
    const int64_t dram_entries =
        program_.param_bytes[param->second] / (elements * dram->dtype.bytes());
    std::vector<int64_t> at(outer.size(), 0);
    while (true) {
      int64_t s0 = sram0, d0 = dram0;
      for (size_t k = 0; k < outer.size(); ++k) {
        s0 += at[k] * sram_step(outer[k]);
        d0 += at[k] * dram_step(outer[k]);
      }
      if (s0 < 0 || s0 + tile > placed.entries) {
        return Error(absl::StrCat(what, " writes entries [", s0, ", ", s0 + tile, ") of ",
                                  placed.name, ", which has ", placed.entries));
      }
      const int64_t last = d0 + int64_t{insn.y_size - 1} * insn.x_stride + insn.x_size;
      if (d0 < 0 || last > dram_entries) {
        return Error(absl::StrCat(what, " reaches entries [", d0, ", ", last, ") of ", dram->name,
                                  ", which has ", dram_entries));
      }
      insn.sram_base = static_cast<uint32_t>(placed.base + s0);
      insn.dram_base = static_cast<uint32_t>(d0);
      const Sram buffer = is_load ? placed.kind->sram : Sram::kAcc;
      if (buffer == Sram::kInput || buffer == Sram::kWeight) {
        std::vector<int64_t>& writer = writer_[buffer == Sram::kInput ? 0 : 1];
        std::fill(writer.begin() + placed.base + s0, writer.begin() + placed.base + s0 + tile,
                  static_cast<int64_t>(planner_.size()));
      }
      TESSEL_RETURN_IF_ERROR(Emit(
          insn, {{buffer, placed.base + s0, placed.base + s0 + tile, is_load}}, param->second));
      if (!NextIteration(outer, at)) break;
    }
    return absl::OkStatus();
  }

  // A copy whose reads outside `inside` are zeros: per tile, the rows and columns where the
  // condition holds must form one rectangle; around it the DMA writes zeros (up to 15 rows or
  // entries on each side, the ISA's pad fields).
  absl::Status PaddedLoad(const std::string& what, const std::vector<const ir::ForNode*>& loops,
                          const ir::Expr& dst_index, const ir::Expr& src_index,
                          const ir::Expr& inside, MemType type, const Placed& placed,
                          const ir::Buffer& dram, int param) {
    const int64_t elements = placed.kind->elements;
    absl::StatusOr<AffineNest> affine =
        AnalyseNest(loops, {dst_index, src_index}, Evaluator(), /*merge=*/false);
    if (affine.ok()) affine = InEntries(*affine, elements);
    if (!affine.ok()) return Error(absl::StrCat(what, " ", affine.status().message()));
    std::vector<AffineDim> dims = affine->dims;
    if (dims.size() > 1 && dims[0].extent == 1) dims.erase(dims.begin());  // one entry per column
    const AffineDim x = dims[0];
    const AffineDim y = dims.size() > 1 ? dims[1] : AffineDim{1, {x.extent, 0}, nullptr};
    if (x.steps[0] != 1 || x.steps[1] != 1 || y.steps[0] != x.extent ||
        (x.extent > 1 && x.var == nullptr) || (y.extent > 1 && y.var == nullptr)) {
      return Error(
          absl::StrCat(what, " is padded but its tile is not rows of consecutive entries"));
    }
    const std::vector<AffineDim> outer(dims.begin() + std::min<size_t>(dims.size(), 2), dims.end());
    for (const AffineDim& d : outer) {
      if (d.var == nullptr) return Error(absl::StrCat(what, " is padded along merged loops"));
    }
    const int64_t pad_max = (int64_t{1} << hardware::vdla::kPadBits) - 1;
    const int64_t dram_entries = program_.param_bytes[param] / (elements * dram->dtype.bytes());
    for (const ir::ForNode* loop : loops) env_[loop->loop_var.get()] = 0;
    std::vector<int64_t> at(outer.size(), 0);
    absl::Status status;
    while (status.ok()) {
      int64_t s0 = affine->base[0], d0 = affine->base[1];
      for (size_t k = 0; k < outer.size(); ++k) {
        env_[outer[k].var] = at[k];
        s0 += at[k] * outer[k].steps[0];
        d0 += at[k] * outer[k].steps[1];
      }
      // The rectangle of rows and columns read from DRAM.
      int64_t r0 = y.extent, r1 = 0, c0 = x.extent, c1 = 0, count = 0;
      for (int64_t r = 0; r < y.extent && status.ok(); ++r) {
        if (y.var != nullptr) env_[y.var] = r;
        for (int64_t c = 0; c < x.extent; ++c) {
          if (x.var != nullptr) env_[x.var] = c;
          absl::StatusOr<int64_t> in = Eval(inside);
          if (!in.ok()) {
            status = in.status();
            break;
          }
          if (*in == 0) continue;
          ++count;
          r0 = std::min(r0, r);
          r1 = std::max(r1, r + 1);
          c0 = std::min(c0, c);
          c1 = std::max(c1, c + 1);
        }
      }
      if (!status.ok()) break;
      if (count == 0 || count != (r1 - r0) * (c1 - c0)) {
        status = Error(
            absl::StrCat(what, count == 0 ? " has a tile entirely in the padding"
                                          : " reads a region that is not a rectangle of its tile"));
        break;
      }
      const int64_t pads[4] = {r0, y.extent - r1, c0, x.extent - c1};
      if (*std::max_element(pads, pads + 4) > pad_max) {
        status = Error(absl::StrCat(what, " pads its tile by ", *std::max_element(pads, pads + 4),
                                    " rows or entries; the DMA pads at most ", pad_max));
        break;
      }
      MemInsn insn;
      insn.opcode = Opcode::kLoad;
      insn.type = type;
      insn.sram_base = static_cast<uint32_t>(placed.base + s0);
      const int64_t first = d0 + r0 * y.steps[1] + c0;
      const int64_t last = first + (r1 - r0 - 1) * y.steps[1] + (c1 - c0);
      if (first < 0 || last > dram_entries || y.steps[1] < 0) {
        status = Error(absl::StrCat(what, " reaches entries [", first, ", ", last, ") of ",
                                    dram->name, ", which has ", dram_entries));
        break;
      }
      if (s0 < 0 || s0 + y.extent * x.extent > placed.entries) {
        status = Error(absl::StrCat(what, " writes past ", placed.name));
        break;
      }
      insn.dram_base = static_cast<uint32_t>(first);
      insn.y_size = static_cast<uint32_t>(r1 - r0);
      insn.x_size = static_cast<uint32_t>(c1 - c0);
      insn.x_stride = static_cast<uint32_t>(y.extent > 1 ? y.steps[1] : c1 - c0);
      insn.y_pad_0 = static_cast<uint32_t>(pads[0]);
      insn.y_pad_1 = static_cast<uint32_t>(pads[1]);
      insn.x_pad_0 = static_cast<uint32_t>(pads[2]);
      insn.x_pad_1 = static_cast<uint32_t>(pads[3]);
      const int64_t begin = placed.base + s0, end = begin + y.extent * x.extent;
      if (type == MemType::kInput) {
        std::fill(writer_[0].begin() + begin, writer_[0].begin() + end,
                  static_cast<int64_t>(planner_.size()));
      }
      status = Emit(insn, {{placed.kind->sram, begin, end, true}}, param);
      if (!NextIteration(outer, at)) break;
    }
    for (const ir::ForNode* loop : loops) env_.erase(loop->loop_var.get());
    return status;
  }

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

}  // namespace

absl::StatusOr<Program> EmitProgram(const ir::PrimFunc& function, const Config& config) {
  if (absl::Status s = hardware::vdla::CheckBuildable(config); !s.ok()) return s;
  return Emitter(function, config).Run();
}

}  // namespace tessel::codegen::vdla
