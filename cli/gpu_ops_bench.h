#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <vector>

#include "compiler/target/target.h"
#include "search/records/apply_history_best.h"
#include "workloads/table2.h"

// `tessel bench ops --suite table2 --target cuda|opencl ...` (ops_bench.h dispatches here): each
// layer with the GPU strategy's template (its fallback config, or the best of a tuning log),
// built for the target and, where the target's device is here, run, checked against libtorch
// and timed (median of repeats of the kernel alone, inputs already on the device).
//   cuda:   each layer's kernel goes through NVRTC and ptxas; its registers per thread, static
//           shared memory per block and spilled bytes are printed. Timed with CUDA events where a
//           GPU is present; without one every kernel is still built and checked against the
//           GPU's limits, and a line says why nothing was timed.
//   opencl: run on this machine's OpenCL device (PoCL here: a CPU, so the times say nothing of
//           a GPU's, which the output states).
// The last line is `N of M layers built[, run and correct]`; an error when a layer fails to
// build or computes a wrong result.
namespace tessel::cli {

struct GpuBenchOptions {
  int repeat = 7;
  const search::ApplyHistoryBest* history = nullptr;  // null: fallback configs
  std::string log;                                    // its files, for the header
};

absl::Status BenchGpuOps(const target::Target& target, const std::vector<workloads::Layer>& layers,
                         const GpuBenchOptions& options, std::ostream& out);

}  // namespace tessel::cli
