#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel bench model NAME --vs libtorch`: one network of workloads/networks compiled by Tessel
// and the same network in libtorch on the same weights, checked against each other, then timed
// interleaved in this process.
namespace tessel::cli {

// args after "bench model": `NAME [--vs libtorch] [--threads T] [--batch N] [--log L[,L2]]
// [--repeat R]`. Prints the machine, both times (median of R interleaved repeats after warm-up,
// ms) and, last, `tessel/libtorch speedup = S` (S = median over repeats of libtorch's time / ours).
// Errors name the flag; outputs that differ beyond tolerance are an error naming the largest
// difference (nothing is timed).
absl::Status BenchModel(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
