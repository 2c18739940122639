#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/driver/compile_model.h"
#include "compiler/ops/op_runner.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/target/target.h"

// Whole networks run several ways and timed against each other: the measuring core of `tessel
// bench model` (cli/model_bench.h) and of `kind: models` experiments (models_runner.h).
//
// Every variant runs in a process of its own, as in production (side_process.h): a timing worker
// builds the network of workloads/networks (weights seed 0, inputs seed 1) and prepares it as the
// variant asks: compiled by Tessel with its CompileOptions, or its libtorch version
// (baselines/torch/networks) on the same weights, with `threads` threads (Tessel's pool, which
// also sizes the templates' parallel loops at compile time, or libtorch's intra-op threads).
// Then:
//   1. outputs: every variant's first outputs are compared with the reference, the first libtorch
//      variant's outputs, or without one the graph evaluated node by node by libtorch
//      (baselines::EvaluateReference) here; a variant that differs beyond the tolerance is an error
//      naming it, and nothing is timed;
//   2. warm-up: `warmup` rounds, each running every variant once, in order;
//   3. runs per repeat: with min_repeat_ms > 0, each variant's count of back-to-back runs is
//      grown (untimed) until one repeat lasts at least min_repeat_ms; else 1;
//   4. repeats: `repeat` rounds, each timing one repeat of every variant in order (round robin,
//      so that all variants see the same machine state over the run), each started once the
//      other variants' processes are idle (their threads done spinning); a repeat's time is the
//      mean seconds per run of its batch (std::chrono::steady_clock, in the worker).
namespace tessel::experiments {

// One way of running the network.
struct ModelVariant {
  std::string name;                     // as reported
  bool libtorch = false;                // true: the libtorch version; false: Tessel with `compile`
  driver::CompileOptions compile = {};  // Tessel's options (optimize_graph, fuse, ...)
  // Tessel variants: the network imported from this ONNX file (`tessel export`'s, written from
  // the same weights) instead of built by workloads/networks; empty: built.
  std::string onnx_file = "";
};

struct CompareOptions {
  target::Target target = target::Target::Llvm();  // Tessel's (target::ResolveCompileTarget)
  int threads = 1;                                 // >= 1
  int64_t batch = 1;                               // >= 1
  int repeat = 7;                                  // >= 1 (commands and configs ask for >= 5)
  int warmup = 3;                                  // >= 0
  double min_repeat_ms = 0;                        // >= 0; 0: one run per repeat
  // Tuning logs with configs for Tessel's kernels; none: every kernel its template's fallback.
  std::vector<std::string> logs;
  // Whole networks: float32 sums over thousands of terms in another order (and Winograd's
  // transforms) differ from libtorch's by more than single operators do.
  ops::Tolerance tolerance{.atol = 2e-3, .rtol = 2e-3};
};

struct VariantTiming {
  std::string name;
  bool libtorch = false;
  std::vector<double> seconds;  // mean seconds per run, one per repeat, in repeat order
  int runs_per_repeat = 1;
  // The most CPU the other variants' processes used during one of this variant's repeats, as a
  // fraction of its wall time (side_process.h SideTiming): 0 when they stayed idle.
  double max_interference = 0;
  // Tessel variants: what Compile made (CompiledModel's steps, fused steps, kernels, tuned
  // kernels) and its warnings (a task without a tuned config, ...); 0 and none for libtorch.
  int steps = 0;
  int fused_steps = 0;
  int kernels = 0;
  int tuned_kernels = 0;
  double compile_seconds = 0;
  std::vector<std::string> warnings;
};

struct ModelComparison {
  std::string network;
  target::Target target;                // resolved
  std::string reference;                // what the outputs were checked against, in words
  std::vector<VariantTiming> variants;  // in the order asked
};

// Median over repeats of base.seconds[i] / v.seconds[i] (the two runs of one round): > 1 when v
// is faster than base. NaN without repeats.
double PairedSpeedup(const VariantTiming& base, const VariantTiming& v);

// Errors: bad options (naming the field), an unknown network or one without a libtorch version
// when a variant asks for it (NotFound naming it), a Tessel variant that does not compile or
// run (naming the variant), outputs that differ (CheckSameOutputs).
absl::StatusOr<ModelComparison> CompareModels(const std::string& network,
                                              const std::vector<ModelVariant>& variants,
                                              const CompareOptions& options);

// Ok when `got` (variant `variant`'s outputs) equal `want` (the reference's) within tolerance;
// otherwise Internal "<network>: variant '<variant>' differs from <reference>: <first
// mismatch>".
absl::Status CheckSameOutputs(const std::string& network, const std::string& variant,
                              const std::vector<runtime::NDArray>& got,
                              const std::string& reference,
                              const std::vector<runtime::NDArray>& want,
                              const ops::Tolerance& tolerance);

}  // namespace tessel::experiments
