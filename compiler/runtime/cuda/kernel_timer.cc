#include "compiler/runtime/cuda/kernel_timer.h"

#include <absl/strings/str_cat.h>

#include <cmath>

#include "compiler/runtime/cuda/driver_api.h"

namespace tessel::runtime::cuda {
namespace {

// Two events, destroyed with this object.
class EventPair {
 public:
  explicit EventPair(const DriverApi& api) : api_(api) {}
  ~EventPair() {
    if (start_ != nullptr) api_.cuEventDestroy(start_);
    if (end_ != nullptr) api_.cuEventDestroy(end_);
  }
  absl::Status Create() {
    if (absl::Status s = CheckCuda(api_, api_.cuEventCreate(&start_, 0), "cuEventCreate");
        !s.ok()) {
      return s;
    }
    return CheckCuda(api_, api_.cuEventCreate(&end_, 0), "cuEventCreate");
  }
  // Seconds per call of `number` calls between the two events.
  absl::StatusOr<double> TimeBatch(const std::function<absl::Status()>& call, int number) {
    if (absl::Status s = CheckCuda(api_, api_.cuEventRecord(start_, nullptr), "cuEventRecord");
        !s.ok()) {
      return s;
    }
    for (int i = 0; i < number; ++i) {
      if (absl::Status s = call(); !s.ok()) return s;
    }
    if (absl::Status s = CheckCuda(api_, api_.cuEventRecord(end_, nullptr), "cuEventRecord");
        !s.ok()) {
      return s;
    }
    // A kernel that faulted reports here, as the error of the wait.
    if (absl::Status s = CheckCuda(api_, api_.cuEventSynchronize(end_), "cuEventSynchronize");
        !s.ok()) {
      return s;
    }
    float ms = 0;
    if (absl::Status s =
            CheckCuda(api_, api_.cuEventElapsedTime(&ms, start_, end_), "cuEventElapsedTime");
        !s.ok()) {
      return s;
    }
    return ms * 1e-3 / number;
  }

 private:
  const DriverApi& api_;
  CUevent start_ = nullptr;
  CUevent end_ = nullptr;
};
}  // namespace

absl::StatusOr<std::vector<double>> TimeKernel(const std::function<absl::Status()>& call,
                                               const TimerOptions& options) {
  if (absl::Status s = ValidateTimerOptions(options); !s.ok()) return s;
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  // The warm-up (at least one call) loads the module and makes the device's context current,
  // which the events need.
  for (int i = 0; i < std::max(options.warmup, 1); ++i) {
    if (absl::Status s = call(); !s.ok()) return s;
  }
  EventPair events(**api);
  if (absl::Status s = events.Create(); !s.ok()) return s;
  int number = options.number;
  if (options.min_repeat_ms > 0) {
    constexpr int kMaxNumber = 1 << 20;
    while (number < kMaxNumber) {
      absl::StatusOr<double> seconds = events.TimeBatch(call, number);
      if (!seconds.ok()) return seconds.status();
      if (*seconds * number * 1e3 >= options.min_repeat_ms) break;
      number *= 2;
    }
  }
  std::vector<double> out;
  for (int r = 0; r < options.repeat; ++r) {
    absl::StatusOr<double> seconds = events.TimeBatch(call, number);
    if (!seconds.ok()) return seconds.status();
    out.push_back(*seconds);
  }
  return out;
}

}  // namespace tessel::runtime::cuda
