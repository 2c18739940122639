#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla::internal {

absl::Status Emitter::Alu(const ir::Stmt& nest) {
  TESSEL_RETURN_IF_ERROR(FlushGemm());
  const Nest n = Unnest(nest);
  for (const ir::Stmt& s : n.bottom) TESSEL_RETURN_IF_ERROR(AluOne(nest, n.loops, s));
  return absl::OkStatus();
}

absl::Status Emitter::AluOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
                             const ir::Stmt& s) {
  const auto* store = s.as<ir::BufferStoreNode>();
  if (store == nullptr || store->indices.size() != 1) {
    return Error(absl::StrCat("the nest under pragma ", kAlu,
                              " is not an element-wise store: ", ir::ToString(nest)));
  }
  const std::string& name = store->buffer->name;
  auto dst = placed_.find(store->buffer->data.get());
  if (dst == placed_.end() || dst->second.kind->sram != Sram::kAcc) {
    return Error(absl::StrCat("buffer ", name, " is computed by the ALU but is not in ", kAccScope,
                              ": the ALU works on accumulators"));
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
    return Overflow(
        absl::StrCat("the element-wise nest of ", name, " ", affine.status().message()));
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

absl::Status Emitter::EmitAlu(AluOp op, bool use_imm, int32_t imm, const std::vector<uint32_t>& dst,
                              const std::vector<uint32_t>* src) {
  std::vector<Uop> uops;
  for (size_t i = 0; i < dst.size(); ++i) {
    uops.push_back({dst[i], src != nullptr ? (*src)[i] : dst[i], 0});
  }
  AluInsn alu;
  alu.op = op;
  alu.use_imm = use_imm;
  alu.imm = imm;
  TESSEL_ASSIGN_OR_RETURN(std::vector<Access> accesses, OverUops(alu, uops));
  if (src != nullptr) accesses.push_back(Span(uops, &Uop::inp, Sram::kAcc, false));
  return Emit(alu, std::move(accesses), Program::kNoDram);
}

}  // namespace tessel::codegen::vdla::internal
