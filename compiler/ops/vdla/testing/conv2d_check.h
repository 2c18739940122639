#pragma once

#include <absl/status/statusor.h>

#include <cstdint>

#include "compiler/ops/vdla/conv2d.h"
#include "hardware/vdla/driver/device.h"
#include "hardware/vdla/driver/program.h"

// Runs a compiled VDLA conv2d on a fresh device with random int8 operands and compares every
// output with the convolution computed here (the int32 sums' low 8 bits), for tests and benches.
namespace tessel::ops::vdla::testing {

struct Conv2dRun {
  hardware::vdla::RunReport report;
  int64_t wrong = 0;        // outputs that differ
  std::string first_wrong;  // "out[oc, y, x] = got, want w" for the first, if any
};

// Errors: the device's (opening it, allocating, running the program).
absl::StatusOr<Conv2dRun> RunConv2d(const Conv2dShape& shape,
                                    const hardware::vdla::Program& program,
                                    hardware::vdla::Engine engine, uint32_t seed);

}  // namespace tessel::ops::vdla::testing
