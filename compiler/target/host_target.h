#pragma once

#include <absl/status/statusor.h>

#include "compiler/target/target.h"

// The target a model is compiled for, spelled as tuning spells it, so that a tuning log's tasks
// are found: an `llvm` target of this host gets `-mcpu=native` when it names no CPU and
// `-fast-math-contract` when it has no fast-math flag (a*b+c fuses into an FMA, as oneDNN and
// OpenBLAS do); then `-mcpu=native` is replaced by the CPU's name and its vector features
// (codegen/llvm NameNativeCpu: "llvm -mcpu=znver3 -fast-math-contract"), so a log tuned on one
// CPU is never applied as if tuned on another. `tessel tune` and the benchmarks resolve --target
// the same way (experiments/bench_target.h HostBenchTarget).
namespace tessel::target {

// The resolved target; an error names a target that is not an llvm target of this host's
// architecture (the compiled model's library is linked with this machine's `cc`). A target this
// CPU cannot run (AVX-512 on an AVX2 machine) resolves: it compiles and links here, and its
// functions refuse to run.
absl::StatusOr<Target> ResolveCompileTarget(const Target& target);

// A compiled model's target: a GPU one (cuda, opencl) as it is (its facts are its -arch's or its
// device class's), any other as ResolveCompileTarget resolves it.
absl::StatusOr<Target> ResolveModelTarget(const Target& target);

// `llvm -mcpu=native -fast-math-contract`: this machine's CPU with a*b+c fused into FMAs, what
// the operator benchmarks compile for.
Target NativeTarget();

}  // namespace tessel::target
