// A development tool: what the graph executor costs per step, beside its kernels' work. Compiles
// chains of relu nodes on a tensor of --elements floats, one of --steps nodes and one of a single
// node, each node its own step (CompileOptions::fuse_elementwise_groups off; on, the chain would
// be one kernel: kernel_groups.h), times the two executors interleaved (batches of runs lasting
// about
// --min_ms, median of --repeat) and prints per run the time of each and
//   per step = (long chain - one node) / (steps - 1),
// what one more step costs: the executor's argument list, the checked kernel call, the kernel
// itself (next to nothing on 16 floats) and, for a kernel that runs in parallel (65536 elements
// or more: the injective schedule's threshold), the thread pool's launch and join. It also times
// an empty parallel launch of the pool alone.
//
//   executor_overhead_bench [--steps=64] [--elements=16] [--threads=2] [--repeat=9] [--min_ms=100]
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/driver/compile_model.h"
#include "compiler/graph/builder.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"

namespace tessel::driver {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int steps = 64;
  int64_t elements = 16;
  int threads = 2;
  int repeat = 9;
  double min_ms = 100;
};

bool ParseFlag(const std::string& arg, Options& o) {
  auto value = [&](const char* name) -> const char* {
    const std::string prefix = std::string("--") + name + "=";
    return arg.rfind(prefix, 0) == 0 ? arg.c_str() + prefix.size() : nullptr;
  };
  if (const char* v = value("steps")) return absl::SimpleAtoi(v, &o.steps) && o.steps >= 2;
  if (const char* v = value("elements")) return absl::SimpleAtoi(v, &o.elements) && o.elements > 0;
  if (const char* v = value("threads")) return absl::SimpleAtoi(v, &o.threads) && o.threads >= 1;
  if (const char* v = value("repeat")) return absl::SimpleAtoi(v, &o.repeat) && o.repeat >= 1;
  if (const char* v = value("min_ms")) return absl::SimpleAtod(v, &o.min_ms) && o.min_ms > 0;
  return false;
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds per call of fn, over a batch of `number` calls.
template <typename Fn>
double TimeBatch(const Fn& fn, int number) {
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < number; ++i) fn();
  return Seconds(start) / number;
}

// Calls per batch so that a batch lasts about min_ms.
template <typename Fn>
int BatchSize(const Fn& fn, double min_ms) {
  const double t = TimeBatch(fn, 3);
  return std::max(1, static_cast<int>(min_ms * 1e-3 / std::max(t, 1e-9)));
}

int Run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!ParseFlag(argv[i], o)) {
      std::fprintf(stderr,
                   "usage: %s [--steps=N>=2] [--elements=N] [--threads=N] [--repeat=N] "
                   "[--min_ms=MS]\nbad argument: %s\n",
                   argv[0], argv[i]);
      return 2;
    }
  }
  runtime::ThreadPool::Global().SetNumThreads(o.threads);
  std::vector<runtime::GraphExecutor> execs;
  for (int steps : {o.steps, 1}) {
    graph::Builder b;
    graph::ValueId y = b.Input("x", {{1, o.elements}});
    for (int i = 0; i < steps; ++i) y = b.Op("relu", {y}, {}, "relu" + std::to_string(i));
    b.Output(y);
    absl::StatusOr<graph::Graph> g = b.Finish();
    if (!g.ok()) return Fail(g.status());
    absl::StatusOr<CompiledModel> m =
        Compile(*g, target::Target::Llvm(), nullptr,
                {.run_threads = o.threads, .fuse_elementwise_groups = false});
    if (!m.ok()) return Fail(m.status());
    if (m->steps.size() != static_cast<size_t>(steps)) {
      return Fail(absl::InternalError(
          absl::StrCat(steps, " relu nodes compiled into ", m->steps.size(), " steps")));
    }
    absl::StatusOr<runtime::GraphExecutor> e = MakeExecutor(*m, {.threads = o.threads});
    if (!e.ok()) return Fail(e.status());
    execs.push_back(*std::move(e));
  }
  runtime::NDArray x = runtime::NDArray::Empty({1, o.elements}, {kDLFloat, 32, 1});
  for (int64_t i = 0; i < o.elements; ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3;
  const std::vector<runtime::NDArray> inputs = {x};
  bool failed = false;
  auto run = [&](size_t v) { return [&, v] { failed |= !execs[v].Run(inputs).ok(); }; };
  int32_t sink = 0;
  auto launch = [&] {
    sink += runtime::ThreadPool::Global().Launch(
        [](int32_t, int32_t, void*) -> int32_t { return 0; }, nullptr, o.threads);
  };
  const int numbers[] = {BatchSize(run(0), o.min_ms), BatchSize(run(1), o.min_ms),
                         BatchSize(launch, o.min_ms)};
  std::vector<double> times[3];
  for (int r = 0; r < o.repeat; ++r) {
    times[0].push_back(TimeBatch(run(0), numbers[0]));
    times[1].push_back(TimeBatch(run(1), numbers[1]));
    times[2].push_back(TimeBatch(launch, numbers[2]));
  }
  if (failed || sink != 0) return Fail(absl::InternalError("a run failed"));
  const double chain = runtime::Median(times[0]), one = runtime::Median(times[1]);
  std::printf("relu chains on %lld floats, %d threads, median of %d\n",
              static_cast<long long>(o.elements), o.threads, o.repeat);
  std::printf("  %3d steps  %9.2f us\n", o.steps, chain * 1e6);
  std::printf("  %3d step   %9.2f us\n", 1, one * 1e6);
  std::printf("  per step   %9.3f us\n", (chain - one) / (o.steps - 1) * 1e6);
  std::printf("  empty parallel launch of the pool: %.3f us\n", runtime::Median(times[2]) * 1e6);
  return 0;
}

}  // namespace
}  // namespace tessel::driver

int main(int argc, char** argv) { return tessel::driver::Run(argc, argv); }
