#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/codegen/vdla/alu_chain.h"
#include "compiler/codegen/vdla/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/status_macros.h"

namespace tessel::codegen::vdla::internal {

absl::Status Emitter::Copy(const ir::Stmt& nest) {
  TESSEL_RETURN_IF_ERROR(FlushGemm());
  const Nest n = Unnest(nest);
  for (const ir::Stmt& s : n.bottom) TESSEL_RETURN_IF_ERROR(CopyOne(nest, n.loops, s));
  return absl::OkStatus();
}

absl::Status Emitter::CopyOne(const ir::Stmt& nest, const std::vector<const ir::ForNode*>& loops,
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
    return PaddedLoad(what, loops, store->indices[0], load->indices[0], inside, type, placed, dram,
                      param->second);
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
  std::vector<int64_t> at(outer.size(), 0);
  while (true) {
    int64_t s0 = sram0, d0 = dram0;
    for (size_t k = 0; k < outer.size(); ++k) {
      s0 += at[k] * sram_step(outer[k]);
      d0 += at[k] * dram_step(outer[k]);
    }
    TESSEL_RETURN_IF_ERROR(Transfer(what, insn, placed, s0, tile, dram, param->second, d0));
    if (!NextIteration(outer, at)) break;
  }
  return absl::OkStatus();
}

absl::Status Emitter::PaddedLoad(const std::string& what,
                                 const std::vector<const ir::ForNode*>& loops,
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
    return Error(absl::StrCat(what, " is padded but its tile is not rows of consecutive entries"));
  }
  const std::vector<AffineDim> outer(dims.begin() + std::min<size_t>(dims.size(), 2), dims.end());
  for (const AffineDim& d : outer) {
    if (d.var == nullptr) return Error(absl::StrCat(what, " is padded along merged loops"));
  }
  const int64_t pad_max = (int64_t{1} << hardware::vdla::kPadBits) - 1;
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
    if (y.steps[1] < 0) {
      status = Error(absl::StrCat(what, " reads its rows backwards in ", dram->name));
      break;
    }
    MemInsn insn;
    insn.opcode = Opcode::kLoad;
    insn.type = type;
    insn.y_size = static_cast<uint32_t>(r1 - r0);
    insn.x_size = static_cast<uint32_t>(c1 - c0);
    insn.x_stride = static_cast<uint32_t>(y.extent > 1 ? y.steps[1] : c1 - c0);
    insn.y_pad_0 = static_cast<uint32_t>(pads[0]);
    insn.y_pad_1 = static_cast<uint32_t>(pads[1]);
    insn.x_pad_0 = static_cast<uint32_t>(pads[2]);
    insn.x_pad_1 = static_cast<uint32_t>(pads[3]);
    status = Transfer(what, insn, placed, s0, y.extent * x.extent, dram, param,
                      d0 + r0 * y.steps[1] + c0);
    if (!NextIteration(outer, at)) break;
  }
  for (const ir::ForNode* loop : loops) env_.erase(loop->loop_var.get());
  return status;
}

absl::Status Emitter::Transfer(const std::string& what, MemInsn insn, const Placed& placed,
                               int64_t s0, int64_t tile, const ir::Buffer& dram, int param,
                               int64_t d0) {
  if (s0 < 0 || s0 + tile > placed.entries) {
    return Error(absl::StrCat(what, " writes entries [", s0, ", ", s0 + tile, ") of ", placed.name,
                              ", which has ", placed.entries));
  }
  const int64_t dram_entries =
      program_.param_bytes[param] / (placed.kind->elements * dram->dtype.bytes());
  const int64_t last = d0 + int64_t{insn.y_size - 1} * insn.x_stride + insn.x_size;
  if (d0 < 0 || last > dram_entries) {
    return Error(absl::StrCat(what, " reaches entries [", d0, ", ", last, ") of ", dram->name,
                              ", which has ", dram_entries));
  }
  const bool is_load = insn.opcode == Opcode::kLoad;
  const Sram buffer = is_load ? placed.kind->sram : Sram::kAcc;
  const int64_t begin = placed.base + s0;
  if (is_load && (buffer == Sram::kInput || buffer == Sram::kWeight)) {
    std::vector<int64_t>& writer = writer_[buffer == Sram::kInput ? 0 : 1];
    std::fill(writer.begin() + begin, writer.begin() + begin + tile,
              static_cast<int64_t>(planner_.size()));
  }
  insn.sram_base = static_cast<uint32_t>(begin);
  insn.dram_base = static_cast<uint32_t>(d0);
  return Emit(insn, {{buffer, begin, begin + tile, is_load}}, param);
}

}  // namespace tessel::codegen::vdla::internal
