#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// One side of a timed comparison (Tessel, libtorch, oneDNN, OpenBLAS) set up in a process of its
// own, as it runs in production: the benchmarks start one `timing_worker` per side and time them
// in turn (side_process.h), so no side's threads, allocator or OpenMP state share a process with
// another's.
//
// The worker's protocol, on two pipes the parent passes as file descriptors 3 (requests in) and 4
// (replies out); the worker's stdout and stderr go to a log file the parent reports on failure:
//   1. `timing_worker REQUEST.json`: the worker sets the side up (MakeTimedSide), runs it once,
//      writes its inputs and outputs as `input_K.npy` / `output_K.npy` into the request's
//      "data_dir", and replies `ready <info as one line of JSON>`, or `error <message>` and exits.
//   2. Each request line `time N` (N >= 1) runs the side N times back to back and replies
//      `ok <mean seconds per run>` (steady clock, measured in the worker), or `error <message>`.
//   3. `quit`, or the end of the requests, exits with status 0.
namespace tessel::experiments {

struct TimedSide {
  // One run on `inputs`; its outputs are not kept.
  std::function<absl::Status()> run;
  // The side's logical inputs and the outputs of its first run.
  std::vector<runtime::NDArray> inputs, outputs;
  // What the setup made, for the parent's report (compile time, kernels, oneDNN's kernel ...).
  nlohmann::json info = nlohmann::json::object();
};

// The side a request describes (timing_sides.h lists the kinds). Errors name the bad field or
// what failed.
using TimedSideFactory = std::function<absl::StatusOr<TimedSide>(const nlohmann::json& request)>;

// The worker's whole life after reading its request: set up with `make`, then the protocol above
// on requests_fd / replies_fd. Returns the process's exit status.
int ServeTimedSide(const nlohmann::json& request, const TimedSideFactory& make, int requests_fd,
                   int replies_fd);

}  // namespace tessel::experiments
