#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

namespace tessel::cli {

// `tessel bench gemm --m M --n N --k K --threads T [--repeat R]`: the hand-written schedule and
// OpenBLAS on the same operands, interleaved, after warm-up; the last line is
// `tessel/openblas = R`, the median over repeats of OpenBLAS's time over ours.
absl::Status BenchGemm(std::span<const std::string> args, std::ostream& out);

// `tessel quickstart`: GEMM with the default and the hand-written schedule, checked against
// OpenBLAS, in a table with GFLOPS, the ratio to OpenBLAS and the fraction of the measured peak.
absl::Status BenchSchedules(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
