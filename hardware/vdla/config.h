#pragma once

#include <absl/status/status.h>

#include <cstdint>

// The VDLA accelerator's hardware parameters (PAPER.md section 3): the GEMM unit's shape, the
// operand widths and the on-chip buffers. The defaults are the paper's configuration. The
// compiler reads them from a target's config file (compiler/target/vdla_config.h); the RTL's
// parameters, the functional simulator and the driver take them from here.
namespace tessel::hardware::vdla {

struct Config {
  int batch = 1;
  int block_in = 16;
  int block_out = 16;
  int input_bits = 8;
  int weight_bits = 8;
  int accumulator_bits = 32;
  int64_t input_buffer_bytes = 32 * 1024;
  int64_t weight_buffer_bytes = 256 * 1024;
  int64_t accumulator_buffer_bytes = 128 * 1024;
  int64_t uop_buffer_bytes = 32 * 1024;
  int clock_mhz = 200;
  // Instructions each module's command queue holds: the fetch module stalls, in program order, on
  // an instruction whose queue is full. Dependency tokens each of the four token queues holds: a
  // push to a full one waits.
  int command_queue_depth = 512;
  int token_queue_depth = 512;

  // The RTL's DRAM port: one 16-byte beat a cycle, read or written (a roofline's bandwidth).
  static constexpr int kDramBeatBytes = 16;

  // Multiply-accumulates per cycle: batch x block_in x block_out.
  int64_t macs_per_cycle() const { return static_cast<int64_t>(batch) * block_in * block_out; }

  // Bytes of one buffer entry, the unit LOAD, STORE, GEMM and ALU address by: an input block
  // (batch x block_in), a weight block (block_out x block_in), an accumulator block (batch x
  // block_out, accumulator_bits each), an output block (the accumulator block narrowed to
  // input_bits), a micro-op (4 bytes).
  int64_t input_entry_bytes() const { return int64_t{batch} * block_in * input_bits / 8; }
  int64_t weight_entry_bytes() const { return int64_t{block_out} * block_in * weight_bits / 8; }
  int64_t accumulator_entry_bytes() const {
    return int64_t{batch} * block_out * accumulator_bits / 8;
  }
  int64_t output_entry_bytes() const { return int64_t{batch} * block_out * input_bits / 8; }
  static constexpr int64_t kUopBytes = 4;

  // Entries per buffer. The output buffer has as many entries as the accumulator buffer: compute
  // writes both at the same index.
  int64_t input_entries() const { return input_buffer_bytes / input_entry_bytes(); }
  int64_t weight_entries() const { return weight_buffer_bytes / weight_entry_bytes(); }
  int64_t accumulator_entries() const {
    return accumulator_buffer_bytes / accumulator_entry_bytes();
  }
  int64_t uop_entries() const { return uop_buffer_bytes / kUopBytes; }
};

// Whether the hardware can be built with these parameters: 8-bit inputs and weights and 32-bit
// accumulators (what the GEMM core and the ALU implement), each buffer holding at least one entry
// and no more than the instruction fields can index (isa.h). InvalidArgument naming the parameter.
absl::Status CheckBuildable(const Config& config);

}  // namespace tessel::hardware::vdla
