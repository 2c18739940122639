#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <span>
#include <vector>

#include "hardware/vdla/config.h"
#include "hardware/vdla/isa.h"

// VDLA's RTL simulated cycle by cycle (the Verilated model of hardware/vdla/rtl), with DRAM served
// from a byte vector: one request accepted a cycle, a read answered `memory_latency` cycles after
// it was granted, in order; a write done when granted. The program is served to the fetch unit
// from addresses of its own, outside DRAM, so DRAM holds data only, as in the functional simulator
// (fsim.h), whose results the RTL's must equal bit for bit.
namespace tessel::hardware::vdla {

struct RtlOptions {
  int memory_latency = 32;  // cycles from a read's grant to its data
  int64_t max_cycles = int64_t{1} << 34;
  // Cycles in a row in which no module runs an instruction and fetch is stalled, after which the
  // run is declared deadlocked.
  int64_t deadlock_cycles = 1024;
};

struct RtlResult {
  int64_t cycles = 0;        // from launch to FINISH retiring
  int64_t instructions = 0;  // retired, FINISH included
  int64_t gemm_steps = 0;    // cycles in which a GEMM micro-op multiply-accumulated (not reset)
};

// Runs `program` on `dram` (the RTL is told its size, dram.size(), at launch). Errors: a Config
// other than the one the model was built with (Vvdla_top_params.h); an instruction no module
// runs, a buffer index out of range or a LOAD or STORE whose DRAM extent passes DRAM's end, which
// the RTL detects before the instruction moves anything and the message says as the functional
// simulator does; a deadlock or the cycle limit (naming the last instruction retired);
// instructions not run when FINISH retired. Internal: the RTL writing past DRAM regardless.
absl::StatusOr<RtlResult> SimulateRtl(const Config& config, const std::vector<EncodedInsn>& program,
                                      std::span<uint8_t> dram, const RtlOptions& options = {});

}  // namespace tessel::hardware::vdla
