#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <string>
#include <vector>

#include "compiler/runtime/timer.h"

// The GPU time of kernel calls, with the semantics of runtime/timer.h's TimeRepeats: untimed
// warm-up calls, then `repeat` repeats of `number` back-to-back calls, each repeat reporting the
// mean seconds per call. A repeat is timed by CUDA events recorded on the launches' stream before
// its first launch and after its last, so it measures the device's time for the batch (launch
// gaps included only where the queue runs dry), not the host's.
namespace tessel::runtime::cuda {

// `call` launches the work once on the current device's default stream (a cuda module's
// Function does). With min_repeat_ms > 0, `number` doubles (untimed calibration batches) until
// one batch lasts that long, at most 2^20 calls. Errors: InvalidArgument for bad options (as
// TimeRepeats), the call's own error, no driver (Unavailable), an event or a kernel that fails.
absl::StatusOr<std::vector<double>> TimeKernel(const std::function<absl::Status()>& call,
                                               const TimerOptions& options);

// The calls a timed graph of TimeKernelReplayed replays (cuda_runner, `tessel bench ops`), as
// experiments/gpu/torch_reference.py replays PyTorch's kernels.
inline constexpr int kCallsPerGraph = 20;

// The same timing of calls replayed from a CUDA graph, as PyTorch's CUDA graphs and
// experiments/gpu/torch_reference.py replay cuDNN's kernels: after one direct call (which loads
// the module), `calls_per_graph` calls are captured once on a stream of the timer's own (`call`
// must launch on CurrentLaunchStream(), as a cuda module's Function does) into a graph, and each
// timed call is one launch of that graph; the seconds returned are per captured call. The host's
// cost per launch (argument checks, cuLaunchKernel) is then paid once per graph, so a kernel of a
// few microseconds is timed as the device runs it rather than as fast as the host can launch it.
// Errors: as TimeKernel; Unimplemented when the driver lacks graphs; the capture's errors.
absl::StatusOr<std::vector<double>> TimeKernelGraph(const std::function<absl::Status()>& call,
                                                    const TimerOptions& options,
                                                    int calls_per_graph);

struct KernelTiming {
  std::vector<double> seconds;
  // "from a CUDA graph of 20 calls", or "one launch at a time (no graph: <why>)".
  std::string how;
};

// TimeKernelGraph with kCallsPerGraph calls, or TimeKernel where the graph cannot be made (a
// driver without graphs, a capture that fails); `how` says which. Errors: TimeKernel's.
absl::StatusOr<KernelTiming> TimeKernelReplayed(const std::function<absl::Status()>& call,
                                                const TimerOptions& options);

}  // namespace tessel::runtime::cuda
