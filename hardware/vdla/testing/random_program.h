#pragma once

#include <cstdint>

#include "hardware/vdla/testing/programs.h"

// Random valid VDLA programs for checking the RTL against the functional simulator: random DRAM,
// and groups of random LOADs, GEMMs, ALUs and STOREs on the load, compute and store modules in a
// random walk along load - compute - store, each group handing over to the next with a token, so
// that no two instructions that touch the same buffer or DRAM bytes can run in either order (the
// result is defined by the program alone). Every index stays inside its buffer and DRAM.
namespace tessel::hardware::vdla::testing {

TestProgram RandomProgram(uint32_t seed);

}  // namespace tessel::hardware::vdla::testing
