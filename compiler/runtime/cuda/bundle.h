#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/runtime/module.h"
#include "compiler/runtime/timer.h"

// A measurement bundle: CUDA kernels compiled and checked here, carried to a machine with an
// NVIDIA GPU, run and timed there by cuda_runner (cuda_runner_main.cc), the results read back
// here. The folder holds each entry's saved cuda module (cuda_module.h) and bundle.json:
//   {"format": "tessel-cuda-bundle", "version": 1, "target": "cuda -arch=sm_90",
//    "timer": {"number": 1, "repeat": 10, "min_repeat_ms": 20, "warmup": 3},
//    "entries": [{"name": "coop_n1024", "module": "coop_n1024.cubin",
//                 "function": "matmul_coop_n1024", "tensors": [[1024, 1024], ...],
//                 "scalars": [], "flops": 2147483648, "reference": "matmul"}]}
// Tensors are float32 and follow the function's parameters, the last one the output; scalar
// arguments (int64) come after them. `reference` names what the output should equal, for the
// checker on the GPU machine (experiments/gpu/torch_reference.py): "matmul" is
// tensors[0] @ tensors[1].
// Version 2 adds to an entry, optionally, "inputs": [".npy" files, relative to the folder, one
// per input tensor], "expected": an ".npy" file the output must equal, and "atol"/"rtol": the
// entry is then checked on the GPU machine itself (tuning, search/measure/cuda_batch.h) and its
// tensors are not written. Version 1 bundles are read as before.
namespace tessel::runtime::cuda {

struct BundleEntry {
  std::string name;      // unique in the bundle; a file-name stem
  std::string module;    // the saved module's file, relative to the bundle folder
  std::string function;  // the kernel to call
  std::vector<std::vector<int64_t>> tensors;
  std::vector<int64_t> scalars;
  double flops = 0;
  std::string reference;
  std::vector<std::string> inputs = {};  // empty: uniform random inputs
  std::string expected = "";             // empty: not checked there (the arrays go to the checker)
  double atol = 1e-3;
  double rtol = 1e-3;
};

struct Bundle {
  std::string target;  // what the kernels were built for, for reports
  TimerOptions timer;
  std::vector<BundleEntry> entries;
};

// Writes bundle.json and each entry's module (modules[i] for entries[i]) into `dir`, creating it.
// InvalidArgument when the counts differ or two entries share a name; the save's error else.
absl::Status WriteBundle(const std::string& dir, const Bundle& bundle,
                         const std::vector<Module>& modules);

// Reads DIR/bundle.json; errors name the file and the malformed field.
absl::StatusOr<Bundle> ReadBundle(const std::string& dir);

struct EntryResult {
  std::string name;
  std::vector<double> seconds;  // per call, one per timed repeat
  std::string error;            // why it could not run or time (then seconds is empty)
  // With an error: "wrong_answer" when the output differs from the entry's expected one,
  // "runtime" otherwise.
  std::string error_kind = "";
  // How the times were taken: "from a CUDA graph of 20 calls", or "one launch at a time (no graph:
  // ...)" with why the graph could not be used; empty with an error and in results of older
  // runners.
  std::string timing = "";
};

struct BundleResult {
  std::string device;  // the GPU's name, as the driver gives it
  std::string arch;    // "sm_90"
  std::vector<EntryResult> entries;
};

// Runs each entry on cuda:0: its inputs (uniform in [-1, 1) from a seed of the entry's position
// unless the entry names files), the output filled with NaN, one call whose output is compared
// with the expected one or, without one, whose tensors are written to ARRAYS_DIR/<name>.<k>.npy
// (k the tensor's position) for the checker, then the timer (kernel_timer.h: the calls replayed
// from a CUDA graph; launched one by one where the graph cannot be made, which `timing` says). A
// wrong output is the entry's error and it is not timed. Entries run in forked worker processes
// (entry_workers.h; this one never initializes CUDA): a worker keeps its context from entry to
// entry until one fails otherwise than by a wrong output, so that a kernel that faults (which
// spoils its context for good) or never ends (killed after 120 s) is that entry's error and the
// next ones run in a new worker. An entry that fails (its module does not load, the kernel
// faults) is recorded with its error and the others still run; an error return means nothing
// could run (no driver, no GPU, an unreadable bundle).
absl::StatusOr<BundleResult> RunBundle(const std::string& dir, const std::string& arrays_dir);

// {"device": ..., "arch": ..., "entries": [{"name": ..., "seconds": [...], "error": ...,
//                                           "error_kind": ..., "timing": ...}]}
std::string BundleResultToJson(const BundleResult& result);
// Reads BundleResultToJson's form from a file; errors name the file and the field.
absl::StatusOr<BundleResult> ReadBundleResult(const std::string& path);

}  // namespace tessel::runtime::cuda
