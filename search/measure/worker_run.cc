#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "compiler/ops/op_runner.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/npy.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "search/measure/worker_steps.h"

namespace tessel::search::worker {
namespace {

using Clock = std::chrono::steady_clock;

// Writes every cache line of a buffer twice the last-level cache (at least 8 MiB, at most
// 128 MiB: virtual machines report the host's whole L3, hundreds of MiB), so that a call after it
// finds little of its data in any cache.
class CacheFlusher {
 public:
  CacheFlusher() {
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (llc <= 0) llc = 32L << 20;
    buffer_.assign(std::clamp<size_t>(2 * static_cast<size_t>(llc), 8u << 20, 128u << 20), 0);
  }
  void Flush() {
    for (size_t i = 0; i < buffer_.size(); i += 64) buffer_[i] = static_cast<char>(buffer_[i] + 1);
    // The stores must happen although nothing reads them.
    asm volatile("" : : "r"(buffer_.data()) : "memory");
  }

 private:
  std::vector<char> buffer_;
};

// Times `call` with a cache flush before each call, each call timed on its own; otherwise as
// runtime::TimeRepeats with no warm-up (`number` grown to min_repeat_ms the same way).
std::vector<double> TimeFlushed(const std::function<void()>& call, const RunOptions& run) {
  CacheFlusher flusher;
  auto repeat_seconds = [&](int number) {
    double total = 0;
    for (int i = 0; i < number; ++i) {
      flusher.Flush();
      const Clock::time_point start = Clock::now();
      call();
      total += std::chrono::duration<double>(Clock::now() - start).count();
    }
    return total;
  };
  int number = run.number;
  const double min_seconds = run.min_repeat_ms * 1e-3;
  constexpr int kMaxNumber = 1 << 30;
  while (min_seconds > 0 && number < kMaxNumber) {
    const double seconds = repeat_seconds(number);
    if (seconds >= min_seconds) break;
    const double scale = seconds > 0 ? std::clamp(1.1 * min_seconds / seconds, 2.0, 16.0) : 16.0;
    number = static_cast<int>(std::min<double>(std::ceil(number * scale), kMaxNumber));
  }
  std::vector<double> costs;
  for (int r = 0; r < run.repeat; ++r) costs.push_back(repeat_seconds(number) / number);
  return costs;
}

absl::StatusOr<std::vector<runtime::NDArray>> LoadAll(const std::vector<std::string>& paths) {
  std::vector<runtime::NDArray> arrays;
  for (const std::string& path : paths) {
    absl::StatusOr<runtime::NDArray> array = runtime::LoadNpy(path);
    if (!array.ok()) return array.status();
    arrays.push_back(std::move(*array));
  }
  return arrays;
}

}  // namespace

Result RunCandidate(const Request& request) {
  Result result;
  auto since = Clock::now();
  absl::StatusOr<runtime::Module> module = runtime::Module::Load(request.library);
  if (!module.ok()) return Failure(ErrorKind::kRuntime, module.status());
  absl::StatusOr<runtime::Function> f = module->GetFunction(kCandidateFunction);
  if (!f.ok()) return Failure(ErrorKind::kRuntime, f.status());
  RecordStep(result, "load", since);
  // The host transforms (prepare, finish) and the output shapes are the program's, not the
  // library's: instantiate again.
  ops::OpProgram program;
  if (std::optional<Result> failure = Instantiate(request, program)) return *failure;
  absl::StatusOr<std::vector<runtime::NDArray>> logical = LoadAll(request.inputs);
  if (!logical.ok()) return SetupFailure(std::string(logical.status().message()));
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = ops::PrepareInputs(program, *logical);
  if (!inputs.ok()) return Failure(ErrorKind::kRuntime, inputs.status());
  std::vector<runtime::NDArray> outputs = ops::AllocateOutputs(program);
  const std::vector<runtime::Arg> args = ops::CallArguments(*inputs, outputs);
  const std::span<const runtime::Arg> arg_span(args);
  runtime::ThreadPool::Global().SetNumThreads(
      request.run.threads > 0 ? request.run.threads : runtime::DefaultNumThreads());
  RecordStep(result, "prepare", since);

  if (absl::Status warm = (*f)(arg_span); !warm.ok()) return Failure(ErrorKind::kRuntime, warm);
  RecordStep(result, "warmup", since);
  if (!request.references.empty()) {
    absl::StatusOr<std::vector<runtime::NDArray>> want = LoadAll(request.references);
    if (!want.ok()) return SetupFailure(std::string(want.status().message()));
    absl::StatusOr<std::vector<runtime::NDArray>> got =
        program.finish ? program.finish(outputs) : outputs;
    if (!got.ok()) return Failure(ErrorKind::kRuntime, got.status());
    const ops::Tolerance tolerance{.atol = request.run.atol, .rtol = request.run.rtol};
    if (absl::Status same = ops::CompareOutputs(*got, *want, tolerance, "the reference");
        !same.ok()) {
      return Failure(ErrorKind::kWrongAnswer, same);
    }
    RecordStep(result, "check", since);
  }

  absl::Status status;
  auto call = [&] {
    if (status.ok()) status = (*f)(arg_span);
  };
  if (request.run.flush_cache) {
    result.costs = TimeFlushed(call, request.run);
  } else {
    const runtime::TimerOptions timer{.number = request.run.number,
                                      .repeat = request.run.repeat,
                                      .min_repeat_ms = request.run.min_repeat_ms,
                                      .warmup = 0};
    absl::StatusOr<std::vector<double>> costs = runtime::TimeRepeats(call, timer);
    if (!costs.ok()) return SetupFailure(std::string(costs.status().message()));
    result.costs = std::move(*costs);
  }
  if (!status.ok()) {
    result.costs.clear();
    return Failure(ErrorKind::kRuntime, status);
  }
  RecordStep(result, "time", since);
  return result;
}

}  // namespace tessel::search::worker
