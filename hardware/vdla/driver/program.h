#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/vdla/driver/device.h"
#include "hardware/vdla/isa.h"

// A compiled VDLA function as the driver runs it: its instructions, with DRAM addresses relative
// to the function's buffer arguments (known only when it runs), and the micro-op image its GEMMs
// load. The compiler (compiler/codegen/vdla) writes one; the runtime's `vdla` module holds and runs
// it.
namespace tessel::hardware::vdla {

struct Program {
  std::string name;
  std::vector<std::string> params;   // the buffer arguments' names, in the function's order
  std::vector<int64_t> param_bytes;  // their sizes
  std::vector<Insn> insns;           // FINISH last
  // Per instruction, what its DRAM address counts from: a buffer argument (its index), the
  // micro-op image (kUopImage) or nothing (kNoDram: GEMM, ALU, FINISH).
  static constexpr int kNoDram = -1;
  static constexpr int kUopImage = -2;
  std::vector<int> dram_of;
  std::vector<Uop> uops;
  int64_t macs = 0;  // multiply-accumulates its GEMMs do
  // The most entries of each buffer the program uses at once.
  int64_t input_entries = 0, weight_entries = 0, acc_entries = 0, uop_entries = 0;
};

// Runs `program` on `device`, its buffer arguments at the DRAM byte offsets `args` (in params
// order, each aligned to its entries: 256 bytes covers the default configuration's), with the
// micro-op image in DRAM for the run. InvalidArgument: a wrong number of arguments, an offset not
// on an entry of the type an instruction moves; the device's errors otherwise.
absl::StatusOr<RunReport> RunProgram(Device& device, const Program& program,
                                     const std::vector<uint64_t>& args);

// Bytes of one entry of the memory type a LOAD or STORE moves (config.h).
int64_t EntryBytes(const Config& config, MemType type);

// One instruction a line, with the argument its DRAM address counts from.
std::string ToString(const Program& program);

}  // namespace tessel::hardware::vdla
