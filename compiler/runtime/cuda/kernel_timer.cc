#include "compiler/runtime/cuda/kernel_timer.h"

#include <absl/strings/str_cat.h>

#include <cmath>

#include "compiler/runtime/cuda/driver_api.h"

namespace tessel::runtime::cuda {
namespace {

// Two events, destroyed with this object.
class EventPair {
 public:
  EventPair(const DriverApi& api, CUstream stream) : api_(api), stream_(stream) {}
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
    if (absl::Status s = CheckCuda(api_, api_.cuEventRecord(start_, stream_), "cuEventRecord");
        !s.ok()) {
      return s;
    }
    for (int i = 0; i < number; ++i) {
      if (absl::Status s = call(); !s.ok()) return s;
    }
    if (absl::Status s = CheckCuda(api_, api_.cuEventRecord(end_, stream_), "cuEventRecord");
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
  CUstream stream_;
  CUevent start_ = nullptr;
  CUevent end_ = nullptr;
};

// Warm-up launches, calibration and repeats of `launch` on `stream`, each recorded between
// events on it; seconds per launch.
absl::StatusOr<std::vector<double>> TimeLaunches(const DriverApi& api, CUstream stream,
                                                 const std::function<absl::Status()>& launch,
                                                 const TimerOptions& options) {
  for (int i = 0; i < std::max(options.warmup, 1); ++i) {
    if (absl::Status s = launch(); !s.ok()) return s;
  }
  EventPair events(api, stream);
  if (absl::Status s = events.Create(); !s.ok()) return s;
  int number = options.number;
  if (options.min_repeat_ms > 0) {
    constexpr int kMaxNumber = 1 << 20;
    while (number < kMaxNumber) {
      absl::StatusOr<double> seconds = events.TimeBatch(launch, number);
      if (!seconds.ok()) return seconds.status();
      if (*seconds * number * 1e3 >= options.min_repeat_ms) break;
      number *= 2;
    }
  }
  std::vector<double> out;
  for (int r = 0; r < options.repeat; ++r) {
    absl::StatusOr<double> seconds = events.TimeBatch(launch, number);
    if (!seconds.ok()) return seconds.status();
    out.push_back(*seconds);
  }
  return out;
}

// cuda.h's CU_STREAM_NON_BLOCKING: the capturing stream does not synchronize with the legacy
// default stream, whose use during a capture would invalidate it.
constexpr unsigned kStreamNonBlocking = 1;

// A stream, a captured graph and its executable, destroyed with this object.
class CapturedGraph {
 public:
  explicit CapturedGraph(const DriverApi& api) : api_(api) {}
  ~CapturedGraph() {
    if (exec_ != nullptr) api_.cuGraphExecDestroy(exec_);
    if (graph_ != nullptr) api_.cuGraphDestroy(graph_);
    if (stream_ != nullptr) {
      api_.cuStreamSynchronize(stream_);
      api_.cuStreamDestroy(stream_);
    }
  }
  // Captures `count` calls of `call` on a new stream and instantiates the graph.
  absl::Status Capture(const std::function<absl::Status()>& call, int count) {
    if (absl::Status s =
            CheckCuda(api_, api_.cuStreamCreate(&stream_, kStreamNonBlocking), "cuStreamCreate");
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            CheckCuda(api_, api_.cuStreamBeginCapture(stream_, kStreamCaptureModeRelaxed),
                      "cuStreamBeginCapture");
        !s.ok()) {
      return s;
    }
    absl::Status called;
    {
      LaunchStreamScope scope(stream_);
      for (int i = 0; i < count && called.ok(); ++i) called = call();
    }
    // The capture ends whatever happened, so that the stream is usable and destroyable.
    absl::Status ended =
        CheckCuda(api_, api_.cuStreamEndCapture(stream_, &graph_), "cuStreamEndCapture");
    if (!called.ok()) return called;
    if (!ended.ok()) return ended;
    return CheckCuda(api_, api_.cuGraphInstantiate(&exec_, graph_, 0), "cuGraphInstantiate");
  }
  CUstream stream() const { return stream_; }
  absl::Status Launch() {
    return CheckCuda(api_, api_.cuGraphLaunch(exec_, stream_), "cuGraphLaunch");
  }

 private:
  const DriverApi& api_;
  CUstream stream_ = nullptr;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

}  // namespace

absl::StatusOr<std::vector<double>> TimeKernel(const std::function<absl::Status()>& call,
                                               const TimerOptions& options) {
  if (absl::Status s = ValidateTimerOptions(options); !s.ok()) return s;
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  // The warm-up (at least one call) loads the module and makes the device's context current,
  // which the events need.
  return TimeLaunches(**api, nullptr, call, options);
}

absl::StatusOr<std::vector<double>> TimeKernelGraph(const std::function<absl::Status()>& call,
                                                    const TimerOptions& options,
                                                    int calls_per_graph) {
  if (absl::Status s = ValidateTimerOptions(options); !s.ok()) return s;
  if (calls_per_graph < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("calls_per_graph is ", calls_per_graph, "; it must be at least 1"));
  }
  absl::StatusOr<const DriverApi*> api = Driver();
  if (!api.ok()) return api.status();
  const DriverApi& a = **api;
  if (!a.has_graphs) {
    return absl::UnimplementedError(
        "the CUDA driver has no graph capture (cuStreamBeginCapture_v2, "
        "cuGraphInstantiateWithFlags: CUDA 11.4 or later)");
  }
  // One direct call loads the module and makes the device's context current; it ends before the
  // graph's stream, which does not wait for the default one, starts.
  if (absl::Status s = call(); !s.ok()) return s;
  if (absl::Status s = CheckCuda(a, a.cuCtxSynchronize(), "cuCtxSynchronize"); !s.ok()) return s;
  CapturedGraph graph(a);
  if (absl::Status s = graph.Capture(call, calls_per_graph); !s.ok()) return s;
  absl::StatusOr<std::vector<double>> per_graph = TimeLaunches(
      a, graph.stream(), [&] { return graph.Launch(); }, options);
  if (!per_graph.ok()) return per_graph.status();
  for (double& s : *per_graph) s /= calls_per_graph;
  return per_graph;
}

absl::StatusOr<KernelTiming> TimeKernelReplayed(const std::function<absl::Status()>& call,
                                                const TimerOptions& options) {
  absl::StatusOr<std::vector<double>> replayed = TimeKernelGraph(call, options, kCallsPerGraph);
  if (replayed.ok()) {
    return KernelTiming{*std::move(replayed),
                        absl::StrCat("from a CUDA graph of ", kCallsPerGraph, " calls")};
  }
  absl::StatusOr<std::vector<double>> single = TimeKernel(call, options);
  if (!single.ok()) return single.status();
  return KernelTiming{
      *std::move(single),
      absl::StrCat("one launch at a time (no graph: ", replayed.status().message(), ")")};
}

}  // namespace tessel::runtime::cuda
