#pragma once

#include <absl/status/statusor.h>

#include <string>

// Benchmarks run on this machine: their `llvm` target compiles for the host's CPU and lets a*b+c
// fuse into FMAs (as oneDNN and OpenBLAS do) unless the target string says otherwise.
namespace tessel::experiments {

// target with `-mcpu=native` added when it names no CPU, and `-fast-math-contract` when it has no
// fast-math flag (target::ResolveCompileTarget: compiled models resolve targets the same way). An
// error names a target that is not an llvm target for this host.
absl::StatusOr<std::string> HostBenchTarget(const std::string& target);

// "machine: <CPU, cores, libraries>\ntarget: <target> (cpu <name>), threads: <n>\n"
std::string BenchMetadata(const std::string& target, int threads);

}  // namespace tessel::experiments
