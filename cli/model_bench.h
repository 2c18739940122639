#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel bench model NAME --vs libtorch`: one network of workloads/networks compiled by Tessel
// and the same network in libtorch on the same weights, checked against each other, then timed
// interleaved, each side in a process of its own and timed while the other is idle
// (experiments/compare_models.h).
namespace tessel::cli {

// args after "bench model": `NAME [--vs libtorch] [--threads T] [--batch N] [--log L[,L2]]
// [--repeat R] [--only tessel|libtorch]`. Prints the machine, both times (median of R interleaved
// repeats after warm-up, ms, with the most CPU the other side used during them) and, last,
// `tessel/libtorch speedup = S` (S = median over repeats of libtorch's time / ours). --only times
// one side alone (no speedup line).
// Errors name the flag; outputs that differ beyond tolerance are an error naming the largest
// difference (nothing is timed).
absl::Status BenchModel(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
