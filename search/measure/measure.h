#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"
#include "search/measure/measure_options.h"
#include "search/records/record.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Measuring candidates in isolation: a Builder lowers and compiles each candidate in a worker
// process (several at once, each killed at its timeout), then a LocalRunner times the built
// programs one at a time, each in a fresh child process killed at its timeout. Whatever a
// candidate does (crash, hang, wrong output), the caller gets a MeasureResult with the error kind
// and a one-line message, never a crash of its own.
//
// The workers are a separate executable (measure_worker.h: `MeasureWorkerMain`), so a child
// starts in milliseconds without the caller's libraries (libtorch) and never inherits its threads.
namespace tessel::search {

// The reference outputs of a task's operator for given logical inputs (e.g. libtorch). Kept a
// function so that this library does not depend on any baseline.
using ReferenceFn = std::function<absl::StatusOr<std::vector<runtime::NDArray>>(
    const Task& task, const std::vector<runtime::NDArray>& logical_inputs)>;

struct MeasureOptions {
  BuildOptions build;
  RunOptions run;
  // The worker executable (built from measure_worker_main.cc, or one linking more templates); it
  // must register every template the caller measures. Empty: DefaultWorkerPath().
  std::string worker_path;
  // Where candidates' libraries, inputs and requests go; a fresh temporary directory when empty.
  // Removed by ~Measurer only when Measurer created it.
  std::string work_dir;
  ReferenceFn reference;  // required when run.check_correctness
};

// The worker next to the running executable: $TESSEL_MEASURE_WORKER when set, else the
// `measure_worker` binary in the executable's runfiles tree, else beside it. NotFound naming the
// places tried.
absl::StatusOr<std::string> DefaultWorkerPath();

class Measurer {
 public:
  // Checks the options (worker exists and is executable, positive counts and timeouts, a
  // reference when checking); InvalidArgument naming the option ("MeasureOptions.run.repeat ...").
  static absl::StatusOr<Measurer> Create(MeasureOptions options);
  Measurer(Measurer&&) noexcept;
  Measurer& operator=(Measurer&&) noexcept;
  ~Measurer();

  // Builds every config of `task` (BuildOptions::workers at a time), then runs the built ones in
  // order, one child at a time. Returns one result per config, in order; a candidate's failure is
  // in its result (error kind, one-line message, build_seconds, timestamp), not in the status:
  //   kInstantiation   the config is not a valid point of the space, or the template rejects it
  //   kHostCompile     lowering, code generation or linking failed, or the build worker crashed
  //   kBuildTimeout    the build worker ran past build.timeout_seconds
  //   kRuntime         the program crashed ("killed by signal SIGSEGV (Segmentation fault)"),
  //                    returned an error, or its host transforms failed
  //   kWrongAnswer     the outputs differ from the reference (the first mismatch)
  //   kRunTimeout      the run child ran past run.timeout_seconds
  // The status is an error only when measuring could not happen at all, and names why: the
  // task's inputs or reference cannot be made (the reference's own status code), the work
  // directory is not writable, the worker cannot be started, or it is not a measure worker or
  // lacks the task's template (FailedPrecondition). Configs must be points of
  // Space(task, target::DescribeTarget(task.target)): the workers rebuild that space. Each
  // candidate's files are removed once it is measured. Not thread-safe: one Measure at a time.
  absl::StatusOr<std::vector<MeasureResult>> Measure(const Task& task,
                                                     const std::vector<Config>& configs);

  // Builds config i of `task` into libraries[i] (what Module::Save writes for the task's target:
  // for `cuda`, a cubin and its metadata file), as Measure builds, and runs nothing: for
  // measuring on another machine (cuda_batch.h). One result per config: a failed build as
  // Measure reports it (its library is then not kept), else only build_seconds. The status as
  // Measure's.
  absl::StatusOr<std::vector<MeasureResult>> Build(const Task& task,
                                                   const std::vector<Config>& configs,
                                                   const std::vector<std::string>& libraries);

 private:
  struct State;
  explicit Measurer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace tessel::search
