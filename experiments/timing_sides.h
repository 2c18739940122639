#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>

#include "experiments/timed_side.h"

// The sides a timing_worker sets up (timed_side.h), by the request's "kind" and "side". Every
// request has "threads" (>= 1: the side's thread pools, sized before anything is compiled or
// created) and, for Tessel, "target" (a resolved llvm target of this host).
//
//   kind "network": a network of workloads/networks, weights seed 0, inputs seed 1; fields
//     "network", "batch"; side "libtorch" (its torch module on the same weights) or "tessel"
//     (driver::Compile with "compile": {"optimize_graph", "fuse", "alter_layout"} and the tuning
//     logs "logs": [paths]); info: compile_seconds, steps, fused_steps, kernels, tuned_kernels,
//     warnings.
//   kind "conv2d": one convolution; fields "args" (compiler/ops/OPERATORS.md); side "tessel"
//     ("template", "config": a Config's JSON or null for the fallback, "seed": the inputs'; info:
//     config, compile_seconds) or "onednn" (its direct algorithm on "inputs": [data.npy,
//     weight.npy], the Tessel side's; info: implementation, formats).
//   kind "gemm": C = A B, fields "m", "n", "k" (A and B seeded as experiments/gemm_job.h's);
//     side "tessel" (the hand-written schedule of ops/x86/gemm.h for the host) or "openblas".
namespace tessel::experiments {

absl::StatusOr<TimedSide> MakeTimedSide(const nlohmann::json& request);

}  // namespace tessel::experiments
