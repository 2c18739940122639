#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <span>
#include <vector>

#include "hardware/vdla/config.h"
#include "hardware/vdla/isa.h"

// VDLA's functional simulator: the instruction set's meaning (isa.h) executed in C++, the
// reference the RTL is checked against (same program and DRAM in, bit-identical DRAM out) and
// what the compiler's tests run without Verilator.
//
// The machine is modelled as the RTL is built: a fetch unit dispatching the program in order into
// three command queues (stalling on a full one), three modules each retiring its queue in order,
// an instruction waiting until the tokens it pops are there and the queues it pushes to have
// room, FINISH ending the run. It counts instructions, not cycles: timing is the RTL's.
namespace tessel::hardware::vdla {

struct RunStats {
  int64_t instructions = 0;           // retired, FINISH included
  int64_t per_module[3] = {0, 0, 0};  // by Module
  int64_t gemm_uops = 0;              // micro-op executions of GEMM instructions
  int64_t alu_uops = 0;
  int64_t macs = 0;          // gemm_uops x batch x block_in x block_out (reset ones excluded)
  int64_t bytes_loaded = 0;  // from DRAM, padding excluded
  int64_t bytes_stored = 0;
};

// Runs `program` on `dram`, which LOAD reads and STORE writes (byte address = DRAM entry index x
// the memory type's entry bytes). Errors (InvalidArgument, FailedPrecondition for a deadlock) name
// the instruction by its index in the program and as text: an undecodable or unroutable one, a
// buffer index out of range, a LOAD or STORE whose DRAM extent (isa.h, DramExtentOf) passes the
// end of `dram` (refused before it moves anything, as the RTL does), a deadlock (each module's
// waiting instruction and what it waits for, and the last one retired), a program without FINISH,
// instructions left behind FINISH. `config` must be buildable (CheckBuildable).
absl::StatusOr<RunStats> Simulate(const Config& config, const std::vector<EncodedInsn>& program,
                                  std::span<uint8_t> dram);

}  // namespace tessel::hardware::vdla
