#include "compiler/runtime/timer.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace tessel::runtime {
namespace {

// The largest number of runs per repeat growth goes to: enough for a callable of a nanosecond
// to fill a second.
constexpr int kMaxNumber = 1 << 30;

// Seconds for `number` runs of fn.
double TimeBatch(const std::function<void()>& fn, int number) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < number; ++i) fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The number of runs per repeat: options.number, grown until a batch lasts min_repeat_ms.
int GrowNumber(const std::function<void()>& fn, const TimerOptions& options) {
  const double min_seconds = options.min_repeat_ms * 1e-3;
  int number = options.number;
  if (min_seconds <= 0) return number;
  for (;;) {
    const double seconds = TimeBatch(fn, number);
    if (seconds >= min_seconds || number >= kMaxNumber) return number;
    // Aim 10% past the target; a batch too short to time at all grows by the maximum.
    const double scale = seconds > 0 ? std::clamp(1.1 * min_seconds / seconds, 2.0, 16.0) : 16.0;
    number = static_cast<int>(std::min<double>(std::ceil(number * scale), kMaxNumber));
  }
}

}  // namespace

absl::Status ValidateTimerOptions(const TimerOptions& options) {
  auto bad = [](const char* field, const std::string& value, const char* rule) {
    return absl::InvalidArgumentError(
        absl::StrCat("TimerOptions.", field, " is ", value, "; it must be ", rule));
  };
  if (options.number < 1) return bad("number", absl::StrCat(options.number), ">= 1");
  if (options.repeat < 1) return bad("repeat", absl::StrCat(options.repeat), ">= 1");
  if (options.warmup < 0) return bad("warmup", absl::StrCat(options.warmup), ">= 0");
  if (!(options.min_repeat_ms >= 0)) {
    return bad("min_repeat_ms", absl::StrCat(options.min_repeat_ms), ">= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> TimeRepeats(const std::function<void()>& fn,
                                                const TimerOptions& options) {
  if (absl::Status status = ValidateTimerOptions(options); !status.ok()) return status;
  for (int i = 0; i < options.warmup; ++i) fn();
  const int number = GrowNumber(fn, options);
  std::vector<double> seconds;
  seconds.reserve(options.repeat);
  for (int r = 0; r < options.repeat; ++r) seconds.push_back(TimeBatch(fn, number) / number);
  return seconds;
}

absl::StatusOr<Interleaved> TimeInterleaved(const std::function<void()>& a,
                                            const std::function<void()>& b,
                                            const TimerOptions& options) {
  if (absl::Status status = ValidateTimerOptions(options); !status.ok()) return status;
  for (int i = 0; i < options.warmup; ++i) {
    a();
    b();
  }
  const int number_a = GrowNumber(a, options);
  const int number_b = GrowNumber(b, options);
  Interleaved result;
  std::vector<double> ratios;
  for (int r = 0; r < options.repeat; ++r) {
    result.a_seconds.push_back(TimeBatch(a, number_a) / number_a);
    result.b_seconds.push_back(TimeBatch(b, number_b) / number_b);
    ratios.push_back(result.b_seconds.back() / result.a_seconds.back());
  }
  result.median_ratio = Median(std::move(ratios));
  return result;
}

double Median(std::vector<double> values) {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  if (values.size() % 2 == 1) return values[middle];
  const double lower = *std::max_element(values.begin(), values.begin() + middle);
  return (lower + values[middle]) / 2;
}

}  // namespace tessel::runtime
