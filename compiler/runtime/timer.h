#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <vector>

// Wall-clock timing of a callable, the way the tuner and the benchmarks measure: untimed
// warm-up runs, then `repeat` timed repeats, each the mean of `number` back-to-back runs.
// Times come from std::chrono::steady_clock and are in seconds. Nothing here asserts on time:
// callers compare or report.
namespace tessel::runtime {

struct TimerOptions {
  int number = 1;            // runs per repeat, >= 1 (the starting point when growing)
  int repeat = 5;            // timed repeats, >= 1
  double min_repeat_ms = 0;  // > 0: grow `number` until one repeat lasts this long (ms)
  int warmup = 1;            // untimed runs before anything else, >= 0
};

// OK, or InvalidArgument naming the first bad field (number < 1, repeat < 1, warmup < 0,
// min_repeat_ms negative or not a number).
absl::Status ValidateTimerOptions(const TimerOptions& options);

// Runs fn `warmup` times untimed, then `repeat` repeats; each repeat runs fn `number` times and
// records the mean seconds per run. With min_repeat_ms > 0, `number` is first grown (untimed
// calibration repeats, each with a larger number estimated from the last one's time, at least
// doubling and at most x16) until one repeat lasts at least min_repeat_ms; the grown number
// is used for every repeat. Without growth fn runs exactly warmup + repeat * number times.
// Errors: InvalidArgument naming the first bad field (number < 1, repeat < 1, warmup < 0,
// min_repeat_ms negative or not a number).
absl::StatusOr<std::vector<double>> TimeRepeats(const std::function<void()>& fn,
                                                const TimerOptions& options);

struct Interleaved {
  std::vector<double> a_seconds, b_seconds;  // mean seconds per run, one per repeat
  double median_ratio;                       // Median(b_seconds[i] / a_seconds[i])
};

// Times a and b under the same conditions: `warmup` runs of each (alternating), each one's
// `number` grown separately as in TimeRepeats, then per repeat a batch of a followed by a
// batch of b. median_ratio > 1 means a is faster than b. Errors: as TimeRepeats.
absl::StatusOr<Interleaved> TimeInterleaved(const std::function<void()>& a,
                                            const std::function<void()>& b,
                                            const TimerOptions& options);

// The median: the middle value, or the mean of the two middle values for an even count. NaN
// values (a ratio of two zero times) are left out; NaN when nothing remains.
double Median(std::vector<double> values);

}  // namespace tessel::runtime
