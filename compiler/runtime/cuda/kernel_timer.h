#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <vector>

#include "compiler/runtime/timer.h"

// The GPU time of kernel calls, with the semantics of runtime/timer.h's TimeRepeats: untimed
// warm-up calls, then `repeat` repeats of `number` back-to-back calls, each repeat reporting the
// mean seconds per call. A repeat is timed by CUDA events recorded on the default stream before
// its first launch and after its last, so it measures the device's time for the batch (launch
// gaps included only where the queue runs dry), not the host's.
namespace tessel::runtime::cuda {

// `call` launches the work once on the current device's default stream (a cuda module's
// Function does). With min_repeat_ms > 0, `number` doubles (untimed calibration batches) until
// one batch lasts that long, at most 2^20 calls. Errors: InvalidArgument for bad options (as
// TimeRepeats), the call's own error, no driver (Unavailable), an event or a kernel that fails.
absl::StatusOr<std::vector<double>> TimeKernel(const std::function<absl::Status()>& call,
                                               const TimerOptions& options);

}  // namespace tessel::runtime::cuda
