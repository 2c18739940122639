#pragma once

#include <absl/status/statusor.h>

#include <ostream>
#include <string>
#include <vector>

#include "search/measure/measure.h"
#include "search/task/task.h"
#include "search/tuner/tuner.h"

// Tuning a list of tasks (the tasks of a model: compiler/driver/model_tasks.h) one after
// another into one log, as AutoTVM's tune_tasks does.
//
// Each task is one Tune call (tuner.h) with the same options, so `trials` and `early_stopping`
// are per task and rerunning with the same log resumes every task (Tune finds a task's records
// by its key; a task whose budget the log already holds measures nothing). With a cost model and
// `transfer`, a task's model starts from the log's records of the other tasks of its template
// (TunerOptions::transfer_from): on a first run those tuned before it in the list, on a rerun
// everything the log holds.
namespace tessel::search {

struct TuneTasksOptions {
  // The options of every task's Tune; `log_path` is the one log all tasks append to. Logs in
  // `transfer_from` are offered to every task and used by those whose template they hold records
  // of (another task's).
  TunerOptions tuner;
  // Later tasks of a template take the log's records of the earlier ones as their cost model's
  // prior (only with a cost model and a log).
  bool transfer = true;
  // The progress stream is a terminal: the live line is rewritten in place (ProgressLine).
  bool terminal = false;
};

// Tunes tasks[0], tasks[1], ... in order; one result per task. labels[i] names task i in the
// progress (e.g. "conv2d_nchwc.x86 (node 'conv2_1')"); empty: the template names. With a
// progress stream, each task shows the live line of progress_line.h, labelled
// "[task i/n] <label>", and ends with one summary line:
//   [task 3/14] conv2d_nchwc.x86 (node 'conv2_1'): best 402.1 GFLOPS (0.0573 ms), 200 trials
//   (12 resumed, 3 failed), stopped: budget, 1:02
// and the run ends with "tuned 14 tasks in 21:40: 2800 trials (12 resumed, 31 failed)".
//
// Errors: labels of another length than tasks (InvalidArgument); a task's Tune error (tuner.h:
// bad options, a template or args it cannot use, a log it cannot read or write, measurement
// impossible), prefixed with "[task i/n] <label>: ". The tasks before it are in the log.
absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<Task>& tasks,
                                                  const std::vector<std::string>& labels,
                                                  const TuneTasksOptions& options,
                                                  const MeasureFn& measure, std::ostream* progress);
// The same, measuring with one Measurer (its workers shared by all tasks); set
// options.tuner.batch_size to its BuildOptions::workers.
absl::StatusOr<std::vector<TuneResult>> TuneTasks(const std::vector<Task>& tasks,
                                                  const std::vector<std::string>& labels,
                                                  const TuneTasksOptions& options,
                                                  Measurer& measurer, std::ostream* progress);

}  // namespace tessel::search
