#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "hardware/vdla/config.h"

// The VDLA accelerator's hardware parameters (hardware/vdla/config.h), read from the JSON file a
// `vdla -config=FILE` target names. Every key is optional; a missing one keeps the default (the
// paper's configuration):
//   {"batch": 1, "block_in": 16, "block_out": 16, "input_bits": 8, "weight_bits": 8,
//    "accumulator_bits": 32, "input_buffer_bytes": 32768, "weight_buffer_bytes": 262144,
//    "accumulator_buffer_bytes": 131072, "uop_buffer_bytes": 32768, "clock_mhz": 200}
// The GEMM unit multiplies a batch x block_in input block by a block_in x block_out weight block
// per micro-op.
namespace tessel::target {

using VdlaConfig = hardware::vdla::Config;

// Reads a config file; errors name the file and the key: unreadable, not a JSON object, an
// unknown key, a value that is not a positive integer, a block or bit width that is not a power
// of two, a buffer that does not hold one block.
absl::StatusOr<VdlaConfig> ReadVdlaConfig(const std::string& path);

}  // namespace tessel::target
