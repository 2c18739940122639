#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// The parent's side of timed_side.h: each side of a comparison in a `timing_worker` process of
// its own, and the sides timed round robin, each while every other side is provably idle.
namespace tessel::experiments {

// A started, ready worker. Destroying it ends the worker (quit, then SIGKILL after a second).
class SideProcess {
 public:
  // Starts the worker (TimingWorkerPath()) on `request`, whose "data_dir" it fills with a fresh
  // temporary folder, and waits for its setup: an error carries the worker's message, or, when
  // it died, its exit and the tail of its log, prefixed with `name`.
  static absl::StatusOr<std::unique_ptr<SideProcess>> Start(const std::string& name,
                                                            nlohmann::json request);
  ~SideProcess();
  SideProcess(const SideProcess&) = delete;
  SideProcess& operator=(const SideProcess&) = delete;

  const std::string& name() const { return name_; }
  // The setup's report (TimedSide::info).
  const nlohmann::json& info() const { return info_; }
  // The side's inputs and the outputs of its first run, read back from the worker's files.
  const std::vector<runtime::NDArray>& inputs() const { return inputs_; }
  const std::vector<runtime::NDArray>& outputs() const { return outputs_; }
  // The folder holding them (input_K.npy ...), for a request that takes another side's inputs.
  const std::string& data_dir() const { return data_dir_; }

  // Runs the side `runs` times back to back; the mean seconds per run as the worker measured it.
  absl::StatusOr<double> TimeBatch(int64_t runs);
  // The CPU time every thread of the worker has used so far, in seconds.
  double CpuSeconds() const;

 private:
  SideProcess() = default;
  // An error for a worker that stopped talking: how it ended (reaping it) and its log's tail.
  absl::Status Failure(const std::string& what);

  std::string name_, data_dir_;
  nlohmann::json info_;
  std::vector<runtime::NDArray> inputs_, outputs_;
  pid_t pid_ = -1;
  int requests_fd_ = -1, replies_fd_ = -1;
};

// The timing_worker executable: $TESSEL_TIMING_WORKER, else the one in the running binary's
// runfiles, else beside it. NotFound naming the places tried.
absl::StatusOr<std::string> TimingWorkerPath();

struct RoundRobinOptions {
  int warmup = 3;            // untimed rounds, each running every side once; >= 0
  int repeat = 7;            // timed rounds; >= 1
  double min_repeat_ms = 0;  // each side's runs per repeat grown until a repeat lasts this long
  // Untimed runs of a side right before each of its timed batches: the other sides ran in
  // between and took the caches (ResNet-18's weights alone are 46 MB), so without these a batch
  // of one run measures a cold start, not the side as it runs alone (measured: 1.5x). >= 0.
  int warm_runs_per_repeat = 1;
  // And those untimed runs go on until they have lasted this long: a side comes back to its
  // alone speed only over several runs after another ran (MobileNet v1 on Zen 3, interleaved
  // with libtorch: 24 ms after one warm run, 13-16 ms after five, 12 ms after twenty or alone,
  // `tessel bench model`). >= 0.
  double min_warm_ms = 200;
  // A side is idle when it uses less than this fraction of one core over a 10 ms window. Before
  // each timed batch the parent waits (up to 2 s) until every other side is idle.
  double idle_fraction = 0.02;
};

struct SideTiming {
  std::vector<double> seconds;  // mean seconds per run, one per timed round
  int64_t runs_per_repeat = 1;
  // The largest CPU time the other sides used during one of this side's timed batches, as a
  // fraction of the batch's wall time (0: they were idle throughout).
  double max_interference = 0;
};

// Times the sides round robin after `warmup` untimed rounds: in each of `repeat` rounds, side 0's
// batch, then side 1's, ... (so machine noise falls on all alike), each started once every other
// side is idle and after the side's own warm runs. One SideTiming per side, in order. Errors: bad
// options, a worker's failure.
absl::StatusOr<std::vector<SideTiming>> TimeRoundRobin(const std::vector<SideProcess*>& sides,
                                                       const RoundRobinOptions& options);

}  // namespace tessel::experiments
