#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/runtime/timer.h"
#include "search/measure/measure.h"
#include "search/records/record.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Tuning for an NVIDIA GPU that this machine lacks, a batch at a time. Here a batch of candidates
// is built and checked against the GPU's limits (Measurer::Build) into a folder that is a
// measurement bundle (compiler/runtime/cuda/bundle.h); on a machine with the GPU, cuda_runner runs
// it, checking every output against the reference computed here and timing the correct ones;
// back here its result file becomes the batch's records. `tessel tune --target cuda --bundle DIR`
// drives the loop (README).
//
// The folder holds bundle.json, each built candidate's cubin, the task's inputs and expected
// output (inputN.npy, expected.npy), and batch.json:
//   {"format": "tessel-cuda-batch", "version": 1, "task": Task::ToJson,
//    "candidates": [{"entry": "c0", "config": Config::ToJson, "config_index": 17,
//                    "build_seconds": 0.8}]}
namespace tessel::search {

struct CudaBatchOptions {
  runtime::TimerOptions timer = {.number = 1, .repeat = 3, .min_repeat_ms = 10, .warmup = 1};
  uint32_t input_seed = 1;  // the inputs are the ones Measurer would draw
  double atol = 1e-3;
  double rtol = 1e-3;
};

struct WrittenBatch {
  std::vector<Record> failed;  // the candidates refused here, as records for the log
  int bundled = 0;             // the candidates in the bundle
};

// Builds configs of task (a cuda target) and writes the bundle to dir, which must not exist; it
// appears whole or not at all (written beside it, then renamed). Errors: a task that is not for
// cuda, whose program transforms its tensors on the host (a bundle runs the kernel on the logical
// tensors), whose reference fails, an existing dir, Measurer::Build's errors.
absl::StatusOr<WrittenBatch> WriteCudaBatch(const std::string& dir, const Task& task,
                                            const std::vector<Config>& configs, Measurer& measurer,
                                            const ReferenceFn& reference,
                                            const CudaBatchOptions& options);

// The records of dir's bundled candidates from cuda_runner's result file (BundleResult's JSON):
// costs from a timed entry's seconds, kWrongAnswer for an output that differs from the expected
// one, kRuntime for any other error. Errors name the file and what is wrong with it: not a batch,
// a result that lacks an entry of the batch or has one the batch lacks.
absl::StatusOr<std::vector<Record>> ReadCudaBatchResults(const std::string& dir,
                                                         const std::string& result_path);

}  // namespace tessel::search
