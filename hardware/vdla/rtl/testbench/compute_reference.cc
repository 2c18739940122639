#include "hardware/vdla/rtl/testbench/compute_reference.h"

#include <algorithm>
#include <type_traits>

namespace tessel::hardware::vdla::testbench {
namespace {

// One step of a GEMM or ALU loop: the micro-op and the entry indices it names.
struct Step {
  uint32_t u;
  int64_t dst, src, wgt;
};

// The steps of the loop nest in order (i, then j, then the micro-op), up to the first micro-op
// index past the buffer, which `uop_error` then names.
template <typename L>
std::vector<Step> Steps(const L& insn, const std::vector<uint32_t>& uops,
                        std::optional<IndexError>& uop_error) {
  std::vector<Step> steps;
  for (int64_t i = 0; i < insn.iter_out; ++i) {
    for (int64_t j = 0; j < insn.iter_in; ++j) {
      for (uint32_t u = insn.uop_begin; u < insn.uop_end; ++u) {
        if (u >= kUopDepth) {
          uop_error = IndexError{kBufUop, u};
          return steps;
        }
        const Uop op = DecodeUop(uops[u]);
        Step s{u, op.acc + i * insn.dst_factor_out + j * insn.dst_factor_in,
               op.inp + i * insn.src_factor_out + j * insn.src_factor_in, 0};
        if constexpr (std::is_same_v<L, GemmInsn>) {
          s.wgt = op.wgt + i * insn.wgt_factor_out + j * insn.wgt_factor_in;
        }
        steps.push_back(s);
      }
    }
  }
  return steps;
}

}  // namespace

int32_t AluApply(AluOp op, int32_t a, int32_t b) {
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (op) {
    case AluOp::kMin:
      return a < b ? a : b;
    case AluOp::kMax:
      return a > b ? a : b;
    case AluOp::kAdd:
      return static_cast<int32_t>(ua + ub);
    case AluOp::kMul:
      return static_cast<int32_t>(ua * ub);
    case AluOp::kShr: {
      const int64_t by = std::clamp<int64_t>(b, -31, 31);
      return by >= 0 ? a >> by : static_cast<int32_t>(ua << -by);
    }
  }
  return a;
}

ComputeReference::ComputeReference()
    : inp(kInpDepth * kInpBytes),
      wgt(kWgtDepth * kWgtBytes),
      acc(kAccDepth * kAccElems),
      uop(kUopDepth) {}

OutWrite ComputeReference::Narrowed(uint32_t entry) const {
  OutWrite w{entry, {}};
  for (int e = 0; e < kAccElems; ++e) {
    w.data[e] = static_cast<uint8_t>(static_cast<uint32_t>(acc[entry * kAccElems + e]));
  }
  return w;
}

Outcome ComputeReference::Run(const Insn& insn, bool dry) {
  if (const auto* m = std::get_if<MemInsn>(&insn)) return Load(*m, dry);
  if (const auto* g = std::get_if<GemmInsn>(&insn)) return Gemm(*g, dry);
  if (const auto* a = std::get_if<AluInsn>(&insn)) return Alu(*a, dry);
  return {};
}

// The padded tile, row-major from sram_base: zeros in the padding, DRAM entries inside. First
// every index is checked against the buffer, then the largest DRAM entry read against DRAM's end;
// then, unless `dry`, the tile is moved.
Outcome ComputeReference::Load(const MemInsn& m, bool dry) {
  Outcome out;
  const bool uops = m.type == MemType::kUop;
  const uint64_t entry_bytes = uops ? 4 : kAccBytes;
  const uint32_t rows = m.y_pad_0 + m.y_size + m.y_pad_1;
  const uint32_t cols = m.x_pad_0 + m.x_size + m.x_pad_1;
  std::optional<uint64_t> last;  // DRAM entry
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < cols; ++c) {
        const uint32_t index = m.sram_base + r * cols + c;
        if (index >= (uops ? kUopDepth : kAccDepth)) {
          out.error = IndexError{uops ? kBufUop : kBufAcc, index};
          return out;
        }
        const bool pad = r < m.y_pad_0 || r >= m.y_pad_0 + m.y_size || c < m.x_pad_0 ||
                         c >= m.x_pad_0 + m.x_size;
        const uint64_t e = m.dram_base + uint64_t{r - m.y_pad_0} * m.x_stride + (c - m.x_pad_0);
        if (pass == 0) {
          if (!pad) last = std::max(last.value_or(0), e);
          continue;
        }
        const int words = uops ? 1 : kAccElems;
        for (int w = 0; w < words; ++w) {
          uint32_t v = 0;
          for (int b = 0; b < 4 && !pad; ++b) {
            v |= uint32_t{DramByte(e * entry_bytes + 4 * w + b)} << (8 * b);
          }
          if (uops) {
            uop[index] = v;
          } else {
            acc[index * kAccElems + w] = static_cast<int32_t>(v);
          }
        }
      }
    }
    if (pass == 0 && last && (*last + 1) * entry_bytes > dram.size()) {
      out.error = IndexError{kBufDram, static_cast<uint32_t>(*last)};
      return out;
    }
    if (dry) break;
  }
  return out;
}

Outcome ComputeReference::Gemm(const GemmInsn& g, bool dry) {
  Outcome out;
  std::optional<IndexError> uop_error;
  for (const Step& s : Steps(g, uop, uop_error)) {
    if (s.dst >= kAccDepth) out.error = IndexError{kBufAcc, uint32_t(s.dst)};
    if (!out.error && !g.reset && s.src >= kInpDepth) out.error = {kBufInput, uint32_t(s.src)};
    if (!out.error && !g.reset && s.wgt >= kWgtDepth) out.error = {kBufWeight, uint32_t(s.wgt)};
    if (out.error) return out;
    if (dry) continue;
    for (int b = 0; b < kBatch; ++b) {
      for (int o = 0; o < kBlockOut; ++o) {
        int32_t& a = acc[s.dst * kAccElems + b * kBlockOut + o];
        if (g.reset) {
          a = 0;
          continue;
        }
        uint32_t sum = static_cast<uint32_t>(a);  // the accumulator wraps
        for (int k = 0; k < kBlockIn; ++k) {
          sum += static_cast<uint32_t>(int32_t{inp[s.src * kInpBytes + b * kBlockIn + k]} *
                                       int32_t{wgt[s.wgt * kWgtBytes + o * kBlockIn + k]});
        }
        a = static_cast<int32_t>(sum);
      }
    }
    out.writes.push_back(Narrowed(uint32_t(s.dst)));
    out.gemm_steps += !g.reset;
  }
  out.error = out.error ? out.error : uop_error;
  return out;
}

// dst = op(dst, src or the immediate), element by element; the micro-op's input field names the
// source accumulator.
Outcome ComputeReference::Alu(const AluInsn& a, bool dry) {
  Outcome out;
  std::optional<IndexError> uop_error;
  for (const Step& s : Steps(a, uop, uop_error)) {
    if (s.dst >= kAccDepth) out.error = IndexError{kBufAcc, uint32_t(s.dst)};
    if (!out.error && !a.use_imm && s.src >= kAccDepth) out.error = {kBufAcc, uint32_t(s.src)};
    if (out.error) return out;
    if (dry) continue;
    for (int e = 0; e < kAccElems; ++e) {
      int32_t& d = acc[s.dst * kAccElems + e];
      d = AluApply(a.op, d, a.use_imm ? a.imm : acc[s.src * kAccElems + e]);
    }
    out.writes.push_back(Narrowed(uint32_t(s.dst)));
  }
  out.error = out.error ? out.error : uop_error;
  return out;
}

}  // namespace tessel::hardware::vdla::testbench
