#include "hardware/vdla/isa.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <vector>

namespace tessel::hardware::vdla {
namespace {

constexpr int kOpcodeBits = 3;
constexpr int kMemTypeBits = 3;
constexpr int kAluOpBits = 3;

// Packs fields from bit 0 up; the first field that does not fit its width is the error.
class BitWriter {
 public:
  void Put(const char* field, uint64_t value, int bits) {
    if (bits < 64 && (value >> bits) != 0 && status_.ok()) {
      status_ = absl::InvalidArgumentError(absl::StrCat("instruction field '", field, "' = ", value,
                                                        " does not fit in ", bits, " bits"));
    }
    for (int b = 0; b < bits; ++b, ++pos_) {
      if ((value >> b) & 1) words_[pos_ / 64] |= uint64_t{1} << (pos_ % 64);
    }
  }
  void PutSigned(const char* field, int64_t value, int bits) {
    const int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
    if ((value < lo || value > hi) && status_.ok()) {
      status_ = absl::InvalidArgumentError(absl::StrCat("instruction field '", field, "' = ", value,
                                                        " does not fit in ", bits, " signed bits"));
    }
    Put(field, static_cast<uint64_t>(value) & ((uint64_t{1} << bits) - 1), bits);
  }
  absl::StatusOr<EncodedInsn> Finish() const {
    if (!status_.ok()) return status_;
    return EncodedInsn{words_};
  }

 private:
  std::array<uint64_t, 2> words_ = {0, 0};
  int pos_ = 0;
  absl::Status status_;
};

class BitReader {
 public:
  explicit BitReader(const EncodedInsn& e) : words_(e.words) {}
  uint32_t Get(int bits) {
    uint64_t v = 0;
    for (int b = 0; b < bits; ++b, ++pos_) {
      v |= ((words_[pos_ / 64] >> (pos_ % 64)) & 1) << b;
    }
    return static_cast<uint32_t>(v);
  }
  int32_t GetSigned(int bits) {
    const uint32_t v = Get(bits);
    const uint32_t sign = uint32_t{1} << (bits - 1);
    return static_cast<int32_t>((v ^ sign)) - static_cast<int32_t>(sign);
  }

 private:
  std::array<uint64_t, 2> words_;
  int pos_ = 0;
};

void PutDeps(BitWriter& w, const Deps& d) {
  w.Put("pop_prev", d.pop_prev, 1);
  w.Put("pop_next", d.pop_next, 1);
  w.Put("push_prev", d.push_prev, 1);
  w.Put("push_next", d.push_next, 1);
}

Deps GetDeps(BitReader& r) {
  Deps d;
  d.pop_prev = r.Get(1);
  d.pop_next = r.Get(1);
  d.push_prev = r.Get(1);
  d.push_next = r.Get(1);
  return d;
}

// The loop fields GEMM and ALU share.
template <typename T>
void PutLoops(BitWriter& w, const T& i) {
  w.Put("uop_begin", i.uop_begin, kUopIndexBits);
  w.Put("uop_end", i.uop_end, kUopIndexBits + 1);
  w.Put("iter_out", i.iter_out, kIterBits);
  w.Put("iter_in", i.iter_in, kIterBits);
  w.Put("dst_factor_out", i.dst_factor_out, kUopAccBits);
  w.Put("dst_factor_in", i.dst_factor_in, kUopAccBits);
  w.Put("src_factor_out", i.src_factor_out, kUopInpBits);
  w.Put("src_factor_in", i.src_factor_in, kUopInpBits);
}

template <typename T>
void GetLoops(BitReader& r, T& i) {
  i.uop_begin = r.Get(kUopIndexBits);
  i.uop_end = r.Get(kUopIndexBits + 1);
  i.iter_out = r.Get(kIterBits);
  i.iter_in = r.Get(kIterBits);
  i.dst_factor_out = r.Get(kUopAccBits);
  i.dst_factor_in = r.Get(kUopAccBits);
  i.src_factor_out = r.Get(kUopInpBits);
  i.src_factor_in = r.Get(kUopInpBits);
}

const char* MemTypeName(MemType t) {
  switch (t) {
    case MemType::kUop:
      return "uop";
    case MemType::kWeight:
      return "wgt";
    case MemType::kInput:
      return "inp";
    case MemType::kAccumulator:
      return "acc";
    case MemType::kOutput:
      return "out";
  }
  return "?";
}

const char* AluOpName(AluOp op) {
  switch (op) {
    case AluOp::kMin:
      return "min";
    case AluOp::kMax:
      return "max";
    case AluOp::kAdd:
      return "add";
    case AluOp::kShr:
      return "shr";
    case AluOp::kMul:
      return "mul";
  }
  return "?";
}

std::string DepsText(const Deps& d) {
  std::vector<const char*> flags;
  if (d.pop_prev) flags.push_back("pop_prev");
  if (d.pop_next) flags.push_back("pop_next");
  if (d.push_prev) flags.push_back("push_prev");
  if (d.push_next) flags.push_back("push_next");
  if (flags.empty()) return "";
  std::string out = " [";
  for (size_t i = 0; i < flags.size(); ++i) absl::StrAppend(&out, i ? " " : "", flags[i]);
  return out + "]";
}

}  // namespace

absl::StatusOr<EncodedInsn> Encode(const Insn& insn) {
  BitWriter w;
  if (const auto* m = std::get_if<MemInsn>(&insn)) {
    w.Put("opcode", static_cast<uint64_t>(m->opcode), kOpcodeBits);
    PutDeps(w, m->deps);
    w.Put("memory type", static_cast<uint64_t>(m->type), kMemTypeBits);
    w.Put("sram_base", m->sram_base, kSramBaseBits);
    w.Put("dram_base", m->dram_base, kDramBaseBits);
    w.Put("y_size", m->y_size, kSizeBits);
    w.Put("x_size", m->x_size, kSizeBits);
    w.Put("x_stride", m->x_stride, kSizeBits);
    w.Put("y_pad_0", m->y_pad_0, kPadBits);
    w.Put("y_pad_1", m->y_pad_1, kPadBits);
    w.Put("x_pad_0", m->x_pad_0, kPadBits);
    w.Put("x_pad_1", m->x_pad_1, kPadBits);
  } else if (const auto* g = std::get_if<GemmInsn>(&insn)) {
    w.Put("opcode", static_cast<uint64_t>(Opcode::kGemm), kOpcodeBits);
    PutDeps(w, g->deps);
    w.Put("reset", g->reset, 1);
    PutLoops(w, *g);
    w.Put("wgt_factor_out", g->wgt_factor_out, kUopWgtBits);
    w.Put("wgt_factor_in", g->wgt_factor_in, kUopWgtBits);
  } else if (const auto* a = std::get_if<AluInsn>(&insn)) {
    w.Put("opcode", static_cast<uint64_t>(Opcode::kAlu), kOpcodeBits);
    PutDeps(w, a->deps);
    PutLoops(w, *a);
    w.Put("alu op", static_cast<uint64_t>(a->op), kAluOpBits);
    w.Put("use_imm", a->use_imm, 1);
    w.PutSigned("imm", a->imm, kImmBits);
  } else {
    w.Put("opcode", static_cast<uint64_t>(Opcode::kFinish), kOpcodeBits);
    PutDeps(w, std::get<FinishInsn>(insn).deps);
  }
  return w.Finish();
}

absl::StatusOr<Insn> Decode(const EncodedInsn& bits) {
  BitReader r(bits);
  const uint32_t opcode = r.Get(kOpcodeBits);
  const Deps deps = GetDeps(r);
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kLoad:
    case Opcode::kStore: {
      MemInsn m;
      m.opcode = static_cast<Opcode>(opcode);
      m.deps = deps;
      const uint32_t type = r.Get(kMemTypeBits);
      if (type > static_cast<uint32_t>(MemType::kOutput)) {
        return absl::InvalidArgumentError(absl::StrCat("unknown memory type ", type));
      }
      m.type = static_cast<MemType>(type);
      m.sram_base = r.Get(kSramBaseBits);
      m.dram_base = r.Get(kDramBaseBits);
      m.y_size = r.Get(kSizeBits);
      m.x_size = r.Get(kSizeBits);
      m.x_stride = r.Get(kSizeBits);
      m.y_pad_0 = r.Get(kPadBits);
      m.y_pad_1 = r.Get(kPadBits);
      m.x_pad_0 = r.Get(kPadBits);
      m.x_pad_1 = r.Get(kPadBits);
      return m;
    }
    case Opcode::kGemm: {
      GemmInsn g;
      g.deps = deps;
      g.reset = r.Get(1);
      GetLoops(r, g);
      g.wgt_factor_out = r.Get(kUopWgtBits);
      g.wgt_factor_in = r.Get(kUopWgtBits);
      return g;
    }
    case Opcode::kAlu: {
      AluInsn a;
      a.deps = deps;
      GetLoops(r, a);
      const uint32_t op = r.Get(kAluOpBits);
      if (op > static_cast<uint32_t>(AluOp::kMul)) {
        return absl::InvalidArgumentError(absl::StrCat("unknown ALU operation ", op));
      }
      a.op = static_cast<AluOp>(op);
      a.use_imm = r.Get(1);
      a.imm = r.GetSigned(kImmBits);
      return a;
    }
    case Opcode::kFinish:
      return FinishInsn{deps};
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown opcode ", opcode));
}

absl::StatusOr<uint32_t> EncodeUop(const Uop& uop) {
  if (uop.acc >> kUopAccBits || uop.inp >> kUopInpBits || uop.wgt >> kUopWgtBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "micro-op (acc ", uop.acc, ", inp ", uop.inp, ", wgt ", uop.wgt, ") does not fit in ",
        kUopAccBits, "/", kUopInpBits, "/", kUopWgtBits, " bits"));
  }
  return uop.acc | uop.inp << kUopAccBits | uop.wgt << (kUopAccBits + kUopInpBits);
}

Uop DecodeUop(uint32_t bits) {
  return Uop{bits & ((1u << kUopAccBits) - 1), (bits >> kUopAccBits) & ((1u << kUopInpBits) - 1),
             bits >> (kUopAccBits + kUopInpBits)};
}

absl::StatusOr<Module> Route(const Insn& insn) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(ToString(insn), ": ", why));
  };
  Module module = Module::kCompute;
  Deps deps;
  if (const auto* m = std::get_if<MemInsn>(&insn)) {
    deps = m->deps;
    const bool padded = m->y_pad_0 || m->y_pad_1 || m->x_pad_0 || m->x_pad_1;
    if (m->opcode == Opcode::kStore) {
      if (m->type != MemType::kOutput) return bad("STORE moves outputs only");
      if (padded) return bad("STORE takes no padding");
      module = Module::kStore;
    } else {
      if (m->type == MemType::kOutput) return bad("outputs are not loaded");
      if (padded && (m->type == MemType::kUop || m->type == MemType::kWeight)) {
        return bad("only inputs and accumulators are padded");
      }
      module = m->type == MemType::kInput || m->type == MemType::kWeight ? Module::kLoad
                                                                         : Module::kCompute;
    }
  } else if (const auto* g = std::get_if<GemmInsn>(&insn)) {
    deps = g->deps;
  } else if (const auto* a = std::get_if<AluInsn>(&insn)) {
    deps = a->deps;
  } else {
    deps = std::get<FinishInsn>(insn).deps;
  }
  if (module == Module::kLoad && (deps.pop_prev || deps.push_prev)) {
    return bad("the load module has no queue before it");
  }
  if (module == Module::kStore && (deps.pop_next || deps.push_next)) {
    return bad("the store module has no queue after it");
  }
  return module;
}

const char* ModuleName(Module m) {
  switch (m) {
    case Module::kLoad:
      return "load";
    case Module::kCompute:
      return "compute";
    case Module::kStore:
      return "store";
  }
  return "?";
}

std::optional<DramExtent> DramExtentOf(const MemInsn& m, uint64_t entry_bytes) {
  if (m.y_size == 0 || m.x_size == 0) return std::nullopt;
  const uint64_t last =
      uint64_t{m.dram_base} + (uint64_t{m.y_size} - 1) * m.x_stride + (uint64_t{m.x_size} - 1);
  return DramExtent{m.dram_base, last, entry_bytes};
}

std::string DramOverrunMessage(const DramExtent& e, uint64_t dram_bytes) {
  const std::string entries = e.first == e.last
                                  ? absl::StrCat("DRAM entry ", e.first)
                                  : absl::StrCat("DRAM entries ", e.first, "-", e.last);
  return absl::StrCat(entries, " (bytes ", e.begin_byte(), "-", e.end_byte() - 1, ") beyond the ",
                      dram_bytes, " bytes of DRAM");
}

std::string ToString(const Insn& insn) {
  if (const auto* m = std::get_if<MemInsn>(&insn)) {
    return absl::StrCat(m->opcode == Opcode::kLoad ? "LOAD " : "STORE ", MemTypeName(m->type),
                        " sram=", m->sram_base, " dram=", m->dram_base, " y=", m->y_size,
                        " x=", m->x_size, " stride=", m->x_stride, " pad=", m->y_pad_0, ",",
                        m->y_pad_1, ",", m->x_pad_0, ",", m->x_pad_1, DepsText(m->deps));
  }
  auto loops = [](const auto& i) {
    return absl::StrCat(" uop=[", i.uop_begin, ",", i.uop_end, ") iter=", i.iter_out, "x",
                        i.iter_in, " dst=", i.dst_factor_out, ",", i.dst_factor_in,
                        " src=", i.src_factor_out, ",", i.src_factor_in);
  };
  if (const auto* g = std::get_if<GemmInsn>(&insn)) {
    return absl::StrCat("GEMM", g->reset ? " reset" : "", loops(*g), " wgt=", g->wgt_factor_out,
                        ",", g->wgt_factor_in, DepsText(g->deps));
  }
  if (const auto* a = std::get_if<AluInsn>(&insn)) {
    return absl::StrCat("ALU ", AluOpName(a->op), a->use_imm ? absl::StrCat(" imm=", a->imm) : "",
                        loops(*a), DepsText(a->deps));
  }
  return absl::StrCat("FINISH", DepsText(std::get<FinishInsn>(insn).deps));
}

}  // namespace tessel::hardware::vdla
