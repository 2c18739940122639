#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel bench ops --suite table2 [--target T] [--threads N] [--layers C1,D3] [--repeat R]`:
// for each layer of the suite, the x86 strategy's template with its fallback config against
// oneDNN, interleaved in this process (layout conversions outside the timing on both sides), our
// output checked against libtorch. Prints one row per layer, then the median ratios; the last
// line is `median ratio vs oneDNN = R` (ratio = oneDNN time / ours, > 1: ours is faster).
namespace tessel::cli {

absl::Status BenchOps(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
