#include "hardware/vdla/fsim/fsim.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <string>

#include "compiler/support/check.h"

namespace tessel::hardware::vdla {
namespace {

// The four token queues, by (from, to).
enum Queue { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute, kQueues };

// The queue an instruction of `module` pops from / pushes to on its prev / next side.
Queue PopQueue(Module module, bool prev) {
  if (module == Module::kCompute) return prev ? kLoadToCompute : kStoreToCompute;
  return module == Module::kLoad ? kComputeToLoad : kComputeToStore;
}
Queue PushQueue(Module module, bool prev) {
  if (module == Module::kCompute) return prev ? kComputeToLoad : kComputeToStore;
  return module == Module::kLoad ? kLoadToCompute : kStoreToCompute;
}
const char* QueueName(Queue q) {
  switch (q) {
    case kLoadToCompute:
      return "load->compute";
    case kComputeToLoad:
      return "compute->load";
    case kComputeToStore:
      return "compute->store";
    default:
      return "store->compute";
  }
}

Deps DepsOf(const Insn& insn) {
  return std::visit([](const auto& i) { return i.deps; }, insn);
}

struct Fetched {
  int64_t index;  // in the program
  Insn insn;
  Module module;
};

class Machine {
 public:
  Machine(const Config& c, std::span<uint8_t> dram)
      : c_(c),
        dram_(dram),
        inp_(c.input_entries() * c.input_entry_bytes()),
        wgt_(c.weight_entries() * c.weight_entry_bytes()),
        acc_(c.accumulator_entries() * c.batch * c.block_out),
        out_(c.accumulator_entries() * c.output_entry_bytes()),
        uop_(c.uop_entries()) {}

  absl::StatusOr<RunStats> Run(const std::vector<EncodedInsn>& program);

 private:
  absl::Status Fail(const Fetched& f, const std::string& why) const {
    return absl::InvalidArgumentError(
        absl::StrCat("instruction ", f.index, " (", ToString(f.insn), "): ", why));
  }
  // The reason `f` cannot retire now, or nullopt when it can.
  std::optional<std::string> Blocked(const Fetched& f) const;
  // For a LOAD or STORE, the error its ranges alone give: its first index past the buffer, else
  // its DRAM extent past DRAM's end (isa.h, DramExtentOf), reported as soon as it heads its
  // module's queue, whether its tokens are there or not, and before it moves anything: the RTL's
  // load, store and compute modules check so, in this order.
  std::optional<absl::Status> Overrun(const Fetched& f) const;
  absl::Status Execute(const Fetched& f);
  absl::Status Load(const Fetched& f, const MemInsn& m);
  absl::Status Store(const Fetched& f, const MemInsn& m);
  absl::Status Gemm(const Fetched& f, const GemmInsn& g);
  absl::Status Alu(const Fetched& f, const AluInsn& a);
  // The DRAM bytes [entry * bytes, +bytes), which Overrun has checked.
  uint8_t* DramEntry(int64_t entry, int64_t bytes);
  absl::Status CheckIndex(const Fetched& f, const char* buffer, int64_t index,
                          int64_t entries) const {
    if (index < entries) return absl::OkStatus();
    return Fail(
        f, absl::StrCat(buffer, " buffer index ", index, " out of range (", entries, " entries)"));
  }

  const Config& c_;
  std::span<uint8_t> dram_;
  std::vector<int8_t> inp_, wgt_;
  std::vector<int32_t> acc_;
  std::vector<int8_t> out_;
  std::vector<uint32_t> uop_;
  int tokens_[kQueues] = {0, 0, 0, 0};
  RunStats stats_;
};

std::optional<std::string> Machine::Blocked(const Fetched& f) const {
  const Deps d = DepsOf(f.insn);
  for (bool prev : {true, false}) {
    if ((prev ? d.pop_prev : d.pop_next) && tokens_[PopQueue(f.module, prev)] == 0) {
      return absl::StrCat("waits for a token on ", QueueName(PopQueue(f.module, prev)));
    }
    if ((prev ? d.push_prev : d.push_next) &&
        tokens_[PushQueue(f.module, prev)] >= c_.token_queue_depth) {
      return absl::StrCat("waits for room on ", QueueName(PushQueue(f.module, prev)));
    }
  }
  return std::nullopt;
}

std::optional<absl::Status> Machine::Overrun(const Fetched& f) const {
  const auto* m = std::get_if<MemInsn>(&f.insn);
  if (m == nullptr) return std::nullopt;
  int64_t count = int64_t{m->y_size} * m->x_size, entries = 0, bytes = c_.output_entry_bytes();
  const char* name = "output";
  if (m->opcode == Opcode::kStore) {
    entries = c_.accumulator_entries();
  } else {
    count = (int64_t{m->y_pad_0} + m->y_size + m->y_pad_1) *
            (int64_t{m->x_pad_0} + m->x_size + m->x_pad_1);
    switch (m->type) {
      case MemType::kInput:
        entries = c_.input_entries(), bytes = c_.input_entry_bytes(), name = "input";
        break;
      case MemType::kWeight:
        entries = c_.weight_entries(), bytes = c_.weight_entry_bytes(), name = "weight";
        break;
      case MemType::kAccumulator:
        entries = c_.accumulator_entries(), bytes = c_.accumulator_entry_bytes();
        name = "accumulator";
        break;
      case MemType::kUop:
        entries = c_.uop_entries(), bytes = Config::kUopBytes, name = "micro-op";
        break;
      case MemType::kOutput:
        return std::nullopt;  // Execute refuses it
    }
  }
  if (count != 0 && m->sram_base + count > entries) {
    return CheckIndex(f, name, std::max<int64_t>(m->sram_base, entries), entries);
  }
  const std::optional<DramExtent> extent = DramExtentOf(*m, bytes);
  if (extent && extent->Passes(dram_.size())) {
    return Fail(f, DramOverrunMessage(*extent, dram_.size()));
  }
  return std::nullopt;
}

absl::StatusOr<RunStats> Machine::Run(const std::vector<EncodedInsn>& program) {
  std::deque<Fetched> queues[3];
  size_t pc = 0;
  std::optional<Fetched> last;
  while (true) {
    bool progress = false;
    // Fetch, in program order, until an instruction's queue is full.
    while (pc < program.size()) {
      absl::StatusOr<Insn> insn = Decode(program[pc]);
      if (!insn.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("instruction ", pc, ": ", insn.status().message()));
      }
      absl::StatusOr<Module> module = Route(*insn);
      if (!module.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("instruction ", pc, ": ", module.status().message()));
      }
      std::deque<Fetched>& q = queues[static_cast<int>(*module)];
      if (static_cast<int>(q.size()) >= c_.command_queue_depth) break;
      q.push_back({static_cast<int64_t>(pc), *std::move(insn), *module});
      ++pc;
      progress = true;
    }
    for (std::deque<Fetched>& q : queues) {
      if (q.empty()) continue;
      if (std::optional<absl::Status> overrun = Overrun(q.front())) return *overrun;
      if (Blocked(q.front())) continue;
      Fetched f = std::move(q.front());
      q.pop_front();
      const Deps d = DepsOf(f.insn);
      for (bool prev : {true, false}) {
        if (prev ? d.pop_prev : d.pop_next) --tokens_[PopQueue(f.module, prev)];
      }
      if (absl::Status s = Execute(f); !s.ok()) return s;
      for (bool prev : {true, false}) {
        if (prev ? d.push_prev : d.push_next) ++tokens_[PushQueue(f.module, prev)];
      }
      ++stats_.instructions;
      ++stats_.per_module[static_cast<int>(f.module)];
      progress = true;
      if (std::holds_alternative<FinishInsn>(f.insn)) {
        const size_t left =
            queues[0].size() + queues[1].size() + queues[2].size() + (program.size() - pc);
        if (left > 0) {
          return Fail(f, absl::StrCat("FINISH retired with ", left,
                                      " instructions not run (queued or not fetched)"));
        }
        return stats_;
      }
      last = std::move(f);
    }
    if (progress) continue;
    if (pc == program.size() && queues[0].empty() && queues[1].empty() && queues[2].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("the program of ", program.size(),
                                                     " instructions ran out without a FINISH"));
    }
    std::string why = "deadlock:";
    for (int m = 0; m < 3; ++m) {
      if (queues[m].empty()) continue;
      const Fetched& head = queues[m].front();
      absl::StrAppend(&why, " ", ModuleName(head.module), " module at instruction ", head.index,
                      " (", ToString(head.insn), ") ", Blocked(head).value_or("is ready"), ";");
    }
    if (pc < program.size()) {
      absl::StrAppend(&why, " fetch stalled at instruction ", pc, " on a full queue;");
    }
    absl::StrAppend(&why, " last retired: ",
                    last
                        ? absl::StrCat("instruction ", last->index, " (", ToString(last->insn), ")")
                        : std::string("none"));
    return absl::FailedPreconditionError(why);
  }
}

absl::Status Machine::Execute(const Fetched& f) {
  if (const auto* m = std::get_if<MemInsn>(&f.insn)) {
    return m->opcode == Opcode::kLoad ? Load(f, *m) : Store(f, *m);
  }
  if (const auto* g = std::get_if<GemmInsn>(&f.insn)) return Gemm(f, *g);
  if (const auto* a = std::get_if<AluInsn>(&f.insn)) return Alu(f, *a);
  return absl::OkStatus();  // FINISH
}

uint8_t* Machine::DramEntry(int64_t entry, int64_t bytes) {
  const uint64_t begin = static_cast<uint64_t>(entry) * static_cast<uint64_t>(bytes);
  TESSEL_CHECK(begin + bytes <= dram_.size())
      << "DRAM entry " << entry << " of " << bytes << " bytes past the " << dram_.size()
      << " bytes of DRAM after the instruction's extent was checked";
  return dram_.data() + begin;
}

absl::Status Machine::Load(const Fetched& f, const MemInsn& m) {
  int64_t bytes = 0, entries = 0;
  uint8_t* sram = nullptr;
  const char* name = "";
  switch (m.type) {
    case MemType::kInput:
      bytes = c_.input_entry_bytes(), entries = c_.input_entries(), name = "input";
      sram = reinterpret_cast<uint8_t*>(inp_.data());
      break;
    case MemType::kWeight:
      bytes = c_.weight_entry_bytes(), entries = c_.weight_entries(), name = "weight";
      sram = reinterpret_cast<uint8_t*>(wgt_.data());
      break;
    case MemType::kAccumulator:
      bytes = c_.accumulator_entry_bytes(), entries = c_.accumulator_entries();
      name = "accumulator";
      sram = reinterpret_cast<uint8_t*>(acc_.data());
      break;
    case MemType::kUop:
      bytes = Config::kUopBytes, entries = c_.uop_entries(), name = "micro-op";
      sram = reinterpret_cast<uint8_t*>(uop_.data());
      break;
    case MemType::kOutput:
      return Fail(f, "outputs are not loaded");
  }
  const int64_t rows = int64_t{m.y_pad_0} + m.y_size + m.y_pad_1;
  const int64_t cols = int64_t{m.x_pad_0} + m.x_size + m.x_pad_1;
  for (int64_t y = 0; y < rows; ++y) {
    for (int64_t x = 0; x < cols; ++x) {
      const int64_t index = m.sram_base + y * cols + x;
      if (absl::Status s = CheckIndex(f, name, index, entries); !s.ok()) return s;
      uint8_t* to = sram + index * bytes;
      const bool pad =
          y < m.y_pad_0 || y >= m.y_pad_0 + m.y_size || x < m.x_pad_0 || x >= m.x_pad_0 + m.x_size;
      if (pad) {
        std::memset(to, 0, bytes);
        continue;
      }
      const int64_t entry = m.dram_base + (y - m.y_pad_0) * int64_t{m.x_stride} + (x - m.x_pad_0);
      std::memcpy(to, DramEntry(entry, bytes), bytes);  // DRAM and the buffers are little-endian
      stats_.bytes_loaded += bytes;
    }
  }
  return absl::OkStatus();
}

absl::Status Machine::Store(const Fetched& f, const MemInsn& m) {
  const int64_t bytes = c_.output_entry_bytes();
  for (int64_t y = 0; y < m.y_size; ++y) {
    for (int64_t x = 0; x < m.x_size; ++x) {
      const int64_t index = m.sram_base + y * int64_t{m.x_size} + x;
      if (absl::Status s = CheckIndex(f, "output", index, c_.accumulator_entries()); !s.ok()) {
        return s;
      }
      std::memcpy(DramEntry(m.dram_base + y * int64_t{m.x_stride} + x, bytes),
                  out_.data() + index * bytes, bytes);
      stats_.bytes_stored += bytes;
    }
  }
  return absl::OkStatus();
}

// The low 8 bits, as the hardware narrows an accumulator.
int8_t Narrow(int32_t v) { return static_cast<int8_t>(static_cast<uint32_t>(v) & 0xff); }

absl::Status Machine::Gemm(const Fetched& f, const GemmInsn& g) {
  const int B = c_.batch, I = c_.block_in, O = c_.block_out;
  for (uint32_t i = 0; i < g.iter_out; ++i) {
    for (uint32_t j = 0; j < g.iter_in; ++j) {
      for (uint32_t u = g.uop_begin; u < g.uop_end; ++u) {
        if (absl::Status s = CheckIndex(f, "micro-op", u, c_.uop_entries()); !s.ok()) return s;
        const Uop uop = DecodeUop(uop_[u]);
        const int64_t a = uop.acc + int64_t{i} * g.dst_factor_out + int64_t{j} * g.dst_factor_in;
        const int64_t x = uop.inp + int64_t{i} * g.src_factor_out + int64_t{j} * g.src_factor_in;
        const int64_t w = uop.wgt + int64_t{i} * g.wgt_factor_out + int64_t{j} * g.wgt_factor_in;
        if (absl::Status s = CheckIndex(f, "accumulator", a, c_.accumulator_entries()); !s.ok()) {
          return s;
        }
        if (!g.reset) {
          if (absl::Status s = CheckIndex(f, "input", x, c_.input_entries()); !s.ok()) return s;
          if (absl::Status s = CheckIndex(f, "weight", w, c_.weight_entries()); !s.ok()) return s;
        }
        ++stats_.gemm_uops;
        int32_t* acc = acc_.data() + a * B * O;
        int8_t* out = out_.data() + a * B * O;
        for (int b = 0; b < B; ++b) {
          for (int o = 0; o < O; ++o) {
            uint32_t sum = 0;  // wraps as the 32-bit accumulator does
            if (!g.reset) {
              sum = static_cast<uint32_t>(acc[b * O + o]);
              const int8_t* in = inp_.data() + (x * B + b) * I;
              const int8_t* wt = wgt_.data() + (w * O + o) * I;
              for (int k = 0; k < I; ++k) sum += static_cast<uint32_t>(int32_t{in[k]} * wt[k]);
            }
            acc[b * O + o] = static_cast<int32_t>(sum);
            out[b * O + o] = Narrow(acc[b * O + o]);
          }
        }
        if (!g.reset) stats_.macs += c_.macs_per_cycle();
      }
    }
  }
  return absl::OkStatus();
}

int32_t AluApply(AluOp op, int32_t a, int32_t b) {
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (op) {
    case AluOp::kMin:
      return std::min(a, b);
    case AluOp::kMax:
      return std::max(a, b);
    case AluOp::kAdd:
      return static_cast<int32_t>(ua + ub);
    case AluOp::kMul:
      return static_cast<int32_t>(ua * ub);
    case AluOp::kShr:
      if (b >= 0) return a >> std::min(b, 31);
      return static_cast<int32_t>(ua << std::min(-static_cast<int64_t>(b), int64_t{31}));
  }
  return a;
}

absl::Status Machine::Alu(const Fetched& f, const AluInsn& op) {
  const int64_t n = int64_t{c_.batch} * c_.block_out;
  for (uint32_t i = 0; i < op.iter_out; ++i) {
    for (uint32_t j = 0; j < op.iter_in; ++j) {
      for (uint32_t u = op.uop_begin; u < op.uop_end; ++u) {
        if (absl::Status s = CheckIndex(f, "micro-op", u, c_.uop_entries()); !s.ok()) return s;
        const Uop uop = DecodeUop(uop_[u]);
        const int64_t d = uop.acc + int64_t{i} * op.dst_factor_out + int64_t{j} * op.dst_factor_in;
        const int64_t s = uop.inp + int64_t{i} * op.src_factor_out + int64_t{j} * op.src_factor_in;
        if (absl::Status st = CheckIndex(f, "accumulator", d, c_.accumulator_entries()); !st.ok()) {
          return st;
        }
        if (!op.use_imm) {
          if (absl::Status st = CheckIndex(f, "accumulator", s, c_.accumulator_entries());
              !st.ok()) {
            return st;
          }
        }
        ++stats_.alu_uops;
        for (int64_t e = 0; e < n; ++e) {
          const int32_t b = op.use_imm ? op.imm : acc_[s * n + e];
          acc_[d * n + e] = AluApply(op.op, acc_[d * n + e], b);
          out_[d * n + e] = Narrow(acc_[d * n + e]);
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunStats> Simulate(const Config& config, const std::vector<EncodedInsn>& program,
                                  std::span<uint8_t> dram) {
  if (absl::Status s = CheckBuildable(config); !s.ok()) return s;
  Machine machine(config, dram);
  return machine.Run(program);
}

}  // namespace tessel::hardware::vdla
