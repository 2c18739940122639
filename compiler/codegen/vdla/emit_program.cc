#include "compiler/codegen/vdla/emit_program.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla::internal {

absl::StatusOr<Program> Emitter::Run() {
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

absl::Status Emitter::Error(const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat(f_->name, ": ", what));
}

absl::Status Emitter::Overflow(const std::string& what) const {
  return absl::ResourceExhaustedError(absl::StrCat(f_->name, ": ", what));
}

absl::Status Emitter::Visit(const ir::Stmt& s) {
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

absl::Status Emitter::VisitFor(const ir::ForNode* loop) {
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

const SramKind* Emitter::KindOf(const std::string& scope) const {
  for (const SramKind& k : kinds_) {
    if (scope == k.name) return &k;
  }
  return nullptr;
}

absl::Status Emitter::VisitAllocate(const ir::AllocateNode* alloc) {
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
    return Overflow(absl::StrCat("buffer ", b->name, " needs ", entries, " entries of ", kind->name,
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

absl::Status Emitter::Emit(hardware::vdla::Insn insn, std::vector<Access> accesses, int dram_of) {
  TESSEL_RETURN_IF_ERROR(planner_.Add(std::move(insn), std::move(accesses)));
  dram_of_.push_back(dram_of);
  return absl::OkStatus();
}

Emitter::Nest Emitter::Unnest(const ir::Stmt& nest) {
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

NestEvaluator Emitter::Evaluator() {
  return {[this](const ir::Expr& e) { return Eval(e); },
          [this](const ir::VarNode* v, std::optional<int64_t> value) {
            if (value) {
              env_[v] = *value;
            } else {
              env_.erase(v);
            }
          }};
}

}  // namespace tessel::codegen::vdla::internal

namespace tessel::codegen::vdla {

absl::StatusOr<Program> EmitProgram(const ir::PrimFunc& function,
                                    const hardware::vdla::Config& config) {
  if (absl::Status s = hardware::vdla::CheckBuildable(config); !s.ok()) return s;
  return internal::Emitter(function, config).Run();
}

}  // namespace tessel::codegen::vdla
