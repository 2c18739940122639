#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla::internal {

absl::StatusOr<Emitter::TileArg> Emitter::Tile(const std::vector<ir::Expr>& args, size_t at,
                                               Sram want, int64_t rows, int64_t columns) const {
  const auto* first = args.at(at).as<ir::BufferLoadNode>();
  auto it =
      first && first->indices.size() == 1 ? placed_.find(first->buffer->data.get()) : placed_.end();
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

absl::Status Emitter::VisitCall(const ir::Expr& e) {
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

absl::Status Emitter::FlushGemm() {
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

absl::StatusOr<int64_t> Emitter::LoadUops(const std::vector<Uop>& uops) {
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

Access Emitter::Span(const std::vector<Uop>& uops, uint32_t Uop::*field, Sram buffer, bool write) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Uop& u : uops) {
    lo = std::min<int64_t>(lo, u.*field);
    hi = std::max<int64_t>(hi, u.*field);
  }
  return {buffer, lo, hi + 1, write};
}

absl::Status Emitter::EmitGemm(const std::vector<Uop>& uops) {
  GemmInsn gemm;
  gemm.reset = gemm_reset_;
  TESSEL_ASSIGN_OR_RETURN(std::vector<Access> accesses, OverUops(gemm, uops));
  if (!gemm_reset_) {
    accesses.push_back(Span(uops, &Uop::inp, Sram::kInput, false));
    accesses.push_back(Span(uops, &Uop::wgt, Sram::kWeight, false));
  }
  return Emit(gemm, std::move(accesses), Program::kNoDram);
}

}  // namespace tessel::codegen::vdla::internal
