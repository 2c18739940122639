#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <string>
#include <vector>

#include "search/measure/cuda_batch.h"
#include "search/measure/measure.h"
#include "search/task/task.h"
#include "search/tuner/tuner.h"

// `tessel tune --target cuda --bundle DIR`: tuning one operator, or a model's tasks one after
// another, for an NVIDIA GPU that this machine lacks, a batch per call
// (search/measure/cuda_batch.h). Each call first reads back the
// batch DIR holds, when DIR/results.json is there (cuda_runner's result from the GPU machine),
// appending its records to the log and removing DIR; then it proposes the next batch from the
// log (search::ProposeNext), builds and checks it here, logs the candidates refused here and
// writes the others to DIR as a bundle, and says how to measure it. When the budget is spent it
// prints the best config instead.
namespace tessel::cli {

struct GpuBatchTuning {
  std::string dir;       // --bundle
  int bundle_size = 64;  // --bundle-size: candidates proposed per call
  // A model's later tasks start from the log's records of earlier tasks of their template (the
  // cost model's prior, as search::TuneTasks does); --no-transfer: not.
  bool transfer = true;
  search::CudaBatchOptions batch;
};

struct GpuBatchTask {
  search::Task task;
  std::string label;  // for a model's tasks: the template and nodes
};

// The tasks are tuned in order, each to the budget: a call's batch is of the first task whose
// tuning is not over. Errors: DIR holds a batch without a result (run it first, or remove DIR), a
// batch of a task not in `tasks`, a result that does not fit the batch, the tuner's and
// Measurer's errors.
absl::Status TuneOnGpuBatches(const std::vector<GpuBatchTask>& tasks,
                              const search::TunerOptions& options, search::Measurer& measurer,
                              const search::ReferenceFn& reference, const GpuBatchTuning& tuning,
                              std::ostream& out);

}  // namespace tessel::cli
