#include "hardware/vdla/sim/rtl_sim.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "hardware/vdla/sim/Vvdla_top.h"
#include "hardware/vdla/sim/Vvdla_top_params.h"

namespace tessel::hardware::vdla {
namespace {

// Where the fetch unit reads the program: above any DRAM a run is given.
constexpr uint64_t kProgramBase = uint64_t{1} << 31;
constexpr int kBeatBytes = Config::kDramBeatBytes;

absl::Status CheckBuiltWith(const Config& c) {
  namespace v = verilated;
  const bool same =
      c.batch == v::kBATCH && c.block_in == v::kBLOCK_IN && c.block_out == v::kBLOCK_OUT &&
      c.input_entries() == v::kINP_DEPTH && c.weight_entries() == v::kWGT_DEPTH &&
      c.accumulator_entries() == v::kACC_DEPTH && c.uop_entries() == v::kUOP_DEPTH &&
      c.command_queue_depth == v::kCMD_DEPTH && c.token_queue_depth == v::kTOKEN_DEPTH;
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the Verilated VDLA was built for batch ", v::kBATCH, ", blocks ", v::kBLOCK_IN, "x",
      v::kBLOCK_OUT, ", buffers of ", v::kINP_DEPTH, "/", v::kWGT_DEPTH, "/", v::kACC_DEPTH, "/",
      v::kUOP_DEPTH, " entries, queues of ", v::kCMD_DEPTH, " and ", v::kTOKEN_DEPTH,
      "; this config differs (rebuild with its parameters: hardware/vdla/sim/BUILD)"));
}

// The bytes of an entry of `type` in DRAM.
int64_t EntryBytes(const Config& c, MemType type) {
  switch (type) {
    case MemType::kInput:
      return c.input_entry_bytes();
    case MemType::kWeight:
      return c.weight_entry_bytes();
    case MemType::kAccumulator:
      return c.accumulator_entry_bytes();
    case MemType::kUop:
      return Config::kUopBytes;
    case MemType::kOutput:
      return c.output_entry_bytes();
  }
  return 0;
}

using Beat = std::array<uint8_t, kBeatBytes>;

template <typename Wide>
Beat ToBeat(const Wide& w) {
  Beat b;
  std::memcpy(b.data(), w.data(), kBeatBytes);
  return b;
}

template <typename Wide>
void FromBeat(const Beat& b, Wide& w) {
  std::memcpy(w.data(), b.data(), kBeatBytes);
}

class Harness {
 public:
  Harness(const Config& config, const std::vector<EncodedInsn>& program, std::span<uint8_t> dram,
          const RtlOptions& options)
      : config_(config), program_(program), dram_(dram), options_(options), top_(&context_) {}

  absl::StatusOr<RtlResult> Run();

 private:
  void Tick();
  Beat Read(uint64_t addr) const;
  // The error the RTL raised, in the functional simulator's words.
  absl::Status RtlError() const;
  absl::Status DramError(uint32_t index, const absl::StatusOr<Insn>& insn) const;
  std::string Describe(uint32_t index) const {
    if (index >= program_.size()) return absl::StrCat("instruction ", index);
    absl::StatusOr<Insn> insn = Decode(program_[index]);
    return absl::StrCat("instruction ", index, " (",
                        insn.ok() ? ToString(*insn) : std::string(insn.status().message()), ")");
  }

  const Config& config_;
  const std::vector<EncodedInsn>& program_;
  std::span<uint8_t> dram_;
  const RtlOptions& options_;
  VerilatedContext context_;
  Vvdla_top top_;
  int64_t cycle_ = 0;
  std::deque<std::pair<int64_t, Beat>> responses_;  // (due cycle, data), in order
  std::optional<absl::Status> error_;
};

Beat Harness::Read(uint64_t addr) const {
  Beat b{};
  for (int i = 0; i < kBeatBytes; ++i) {
    const uint64_t a = addr + i;
    if (a >= kProgramBase) {
      const uint64_t offset = a - kProgramBase;
      const uint64_t insn = offset / kBeatBytes;
      if (insn < program_.size()) {
        const uint64_t bit = (offset % kBeatBytes) * 8;
        b[i] = static_cast<uint8_t>(program_[insn].words[bit / 64] >> (bit % 64));
      }
    } else if (a < dram_.size()) {
      b[i] = dram_[a];  // a beat may reach past DRAM's end (a micro-op's 4 bytes); those read 0
    }
  }
  return b;
}

// One clock cycle: inputs for the rising edge, the edge, then the memory's side of it.
void Harness::Tick() {
  top_.clk = 0;
  top_.eval();
  top_.mem_req_ready = 1;
  const bool respond = !responses_.empty() && responses_.front().first <= cycle_;
  top_.mem_resp_valid = respond;
  if (respond) FromBeat(responses_.front().second, top_.mem_resp_data);
  top_.eval();
  const bool request = top_.mem_req_valid;
  const bool write = top_.mem_req_write;
  const uint64_t addr = top_.mem_req_addr;
  const Beat wdata = ToBeat(top_.mem_req_wdata);
  top_.clk = 1;
  top_.eval();
  if (respond) responses_.pop_front();
  if (request) {
    if (!write) {
      responses_.emplace_back(cycle_ + options_.memory_latency, Read(addr));
    } else if (addr + kBeatBytes > dram_.size()) {
      // The store module refuses a STORE past DRAM before it writes: a write here is the RTL's
      // bug, reported rather than made.
      if (!error_) {
        error_ = absl::InternalError(
            absl::StrCat("the RTL wrote DRAM bytes ", addr, "-", addr + kBeatBytes - 1,
                         " beyond the ", dram_.size(), " bytes of DRAM, past its own DRAM check"));
      }
    } else {
      std::memcpy(dram_.data() + addr, wdata.data(), kBeatBytes);
    }
  }
  ++cycle_;
}

absl::Status Harness::RtlError() const {
  const uint32_t index = top_.error_insn;
  const std::string where = absl::StrCat("instruction ", index);
  absl::StatusOr<Insn> insn =
      index < program_.size() ? Decode(program_[index]) : absl::StatusOr<Insn>(FinishInsn{});
  if (top_.error_decode) {
    // What fsim says of an instruction no module runs: the decoder's or the router's message.
    if (!insn.ok())
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", insn.status().message()));
    absl::StatusOr<Module> module = Route(*insn);
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ",
                     module.ok() ? std::string("the RTL refused an instruction the decoder accepts")
                                 : std::string(module.status().message())));
  }
  static constexpr int kBufDram = 5;  // vdla_pkg's BUF_DRAM
  if (top_.error_buffer == kBufDram) return DramError(index, insn);
  static constexpr const char* kBuffers[] = {"input", "weight", "accumulator", "micro-op",
                                             "output"};
  const Config& c = config_;
  const int64_t entries[] = {c.input_entries(), c.weight_entries(), c.accumulator_entries(),
                             c.uop_entries(), c.accumulator_entries()};
  const int buffer = top_.error_buffer < 5 ? top_.error_buffer : 0;
  return absl::InvalidArgumentError(absl::StrCat(Describe(index), ": ", kBuffers[buffer],
                                                 " buffer index ", top_.error_index,
                                                 " out of range (", entries[buffer], " entries)"));
}

// A LOAD or STORE the RTL refused for its DRAM extent: fsim's message from the decoded
// instruction, once the RTL's index (the low 32 bits of the last entry) is seen to agree.
absl::Status Harness::DramError(uint32_t index, const absl::StatusOr<Insn>& insn) const {
  const MemInsn* m = insn.ok() ? std::get_if<MemInsn>(&*insn) : nullptr;
  const std::optional<DramExtent> extent =
      m ? DramExtentOf(*m, EntryBytes(config_, m->type)) : std::nullopt;
  if (!extent || !extent->Passes(dram_.size()) ||
      static_cast<uint32_t>(extent->last) != top_.error_index) {
    return absl::InternalError(
        absl::StrCat(Describe(index), ": the RTL refused it at DRAM entry ", top_.error_index,
                     ", not the last entry of a DRAM extent past DRAM's end (a bug in the RTL)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Describe(index), ": ", DramOverrunMessage(*extent, dram_.size())));
}

absl::StatusOr<RtlResult> Harness::Run() {
  if (dram_.size() > kProgramBase) {
    return absl::InvalidArgumentError(
        absl::StrCat("DRAM of ", dram_.size(), " bytes is more than the simulator serves"));
  }
  top_.launch = 0;
  top_.rst = 1;
  Tick();
  Tick();
  top_.rst = 0;
  top_.insn_addr = static_cast<uint32_t>(kProgramBase);
  top_.insn_count = static_cast<uint32_t>(program_.size());
  top_.dram_bytes = static_cast<uint32_t>(dram_.size());
  top_.launch = 1;
  Tick();
  top_.launch = 0;
  const int64_t start = cycle_;
  int64_t stuck = 0;
  while (!top_.done) {
    Tick();
    if (error_) return *error_;
    if (top_.error) return RtlError();
    stuck = top_.working ? 0 : stuck + 1;
    const bool deadlock = stuck > options_.deadlock_cycles;
    if (deadlock || cycle_ - start > options_.max_cycles) {
      return absl::FailedPreconditionError(absl::StrCat(
          deadlock ? absl::StrCat("deadlock: nothing ran for ", stuck, " cycles")
                   : absl::StrCat("no FINISH after ", options_.max_cycles, " cycles"),
          "; ", top_.retired, " of ", program_.size(), " instructions retired, the last ",
          top_.retired == 0 ? std::string("none") : Describe(top_.last_retired)));
    }
  }
  if (!top_.idle) {
    const int64_t left = static_cast<int64_t>(program_.size()) - top_.retired;
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(top_.last_retired), ": FINISH retired with ", left,
                     " instructions not run (queued or not fetched)"));
  }
  RtlResult r;
  r.cycles = static_cast<int64_t>(top_.cycles);
  r.instructions = top_.retired;
  r.gemm_steps = static_cast<int64_t>(top_.gemm_steps);
  return r;
}

}  // namespace

absl::StatusOr<RtlResult> SimulateRtl(const Config& config, const std::vector<EncodedInsn>& program,
                                      std::span<uint8_t> dram, const RtlOptions& options) {
  if (absl::Status s = CheckBuildable(config); !s.ok()) return s;
  if (absl::Status s = CheckBuiltWith(config); !s.ok()) return s;
  auto harness = std::make_unique<Harness>(config, program, dram, options);
  return harness->Run();
}

}  // namespace tessel::hardware::vdla
