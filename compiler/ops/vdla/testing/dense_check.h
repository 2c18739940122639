#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ops/vdla/dense.h"
#include "hardware/vdla/driver/device.h"
#include "hardware/vdla/driver/program.h"

// Runs a compiled VDLA dense layer on a fresh device with random int8 operands (and int32 biases
// with the tail) and compares every output with the product computed here, for tests and benches.
namespace tessel::ops::vdla::testing {

struct DenseRun {
  hardware::vdla::RunReport report;
  int64_t wrong = 0;        // outputs that differ
  std::string first_wrong;  // "out[row, col] = got, want w" for the first, if any
};

// `tail` as the program was lowered with. Errors: the device's (opening it, allocating, running
// the program).
absl::StatusOr<DenseRun> RunDense(const DenseShape& shape, const std::optional<DenseTail>& tail,
                                  const hardware::vdla::Program& program,
                                  hardware::vdla::Engine engine, uint32_t seed);

}  // namespace tessel::ops::vdla::testing
