#pragma once

#include <absl/status/statusor.h>

#include <string>

// The target a model is compiled for, spelled as tuning spells it, so that a tuning log's tasks
// are found: an `llvm` target of this host gets `-mcpu=native` when it names no CPU and
// `-fast-math-contract` when it has no fast-math flag (a*b+c fuses into an FMA, as oneDNN and
// OpenBLAS do). `tessel tune` and the benchmarks resolve --target the same way
// (cli/bench_target.h HostBenchTarget).
namespace tessel::driver {

// The resolved target string; an error names a target that is not an llvm target of this host
// (the compiled model runs here: its library is linked with this machine's `cc`).
absl::StatusOr<std::string> ResolveCompileTarget(const std::string& target);

}  // namespace tessel::driver
