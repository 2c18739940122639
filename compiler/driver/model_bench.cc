// A development tool: what the graph optimizations buy on whole networks. Compiles each network
// of workloads/networks three ways (untuned, or with the configs of --log):
//   as_given   CompileOptions{.optimize_graph = false}: the graph as given, one kernel per node
//   optimized  the default: dead code, constant and batch-norm folding, then fusion
//   no_fusion  CompileOptions{.fuse = false}: the same passes, one kernel per node
// (and, on request: no_layout, without the layout pass; own_blocks, every kernel in its own
// config's channel blocks rather than its producer's (CompileOptions::follow_data_blocks);
// strided_never and strided_always, the optimized build with every template's fused tails kept
// from, or allowed, a channel-strided input: kernel_groups.h; elementwise_apart, groups without
// a master compiled node by node) and
// times the executors interleaved in this process: warm-up runs, then per repeat a batch of
// runs of each in turn (each batch's size set from a warm-up run to last about --min_ms), so all
// see the same machine state. Prints per network the median time per run of each, its speed-up
// over the first variant, step and kernel counts, the memory plan (peak against naive bytes)
// and compile times.
//
//   model_bench [--networks=resnet18,mobilenet_v1,...] [--variants=as_given,optimized,...]
//               [--threads=2] [--batch=1] [--repeat=7] [--min_ms=200] [--profile=N]
//               [--log=L1,L2]
//
// --profile=N also prints each variant's N slowest steps (median over 11 runs).
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "compiler/driver/compile_model.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "search/records/apply_history_best.h"
#include "workloads/networks/network.h"

namespace tessel::driver {
namespace {

using Clock = std::chrono::steady_clock;

struct Variant {
  const char* name;
  CompileOptions options;
};

const Variant kVariants[] = {
    {"as_given", {.optimize_graph = false}},
    {"optimized", {}},
    {"no_fusion", {.fuse = false}},
    {"no_layout", {.alter_layout = false}},
    {"own_blocks", {.follow_data_blocks = false}},
    {"strided_never", {.strided_tail_inputs = StridedTailInputs::kNever}},
    {"elementwise_apart", {.fuse_elementwise_groups = false}},
    {"strided_always", {.strided_tail_inputs = StridedTailInputs::kAlways}},
};

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Options {
  std::vector<std::string> networks = workloads::networks::NetworkNames();
  int threads = 2;
  int64_t batch = 1;
  int repeat = 7;
  double min_ms = 200;
  int profile = 0;  // > 0: print this many slowest steps of each variant
  std::string log;  // tuning logs (comma-separated) every variant compiles with; empty: none
  std::vector<std::string> variants = {"as_given", "optimized", "no_fusion"};
};

bool ParseFlag(const std::string& arg, Options& o) {
  auto value = [&](const char* flag) -> const char* {
    const size_t n = std::string(flag).size();
    return arg.rfind(flag, 0) == 0 ? arg.c_str() + n : nullptr;
  };
  if (const char* v = value("--networks=")) {
    o.networks = absl::StrSplit(v, ',', absl::SkipEmpty());
    return true;
  }
  if (const char* v = value("--threads=")) return absl::SimpleAtoi(v, &o.threads) && o.threads > 0;
  if (const char* v = value("--batch=")) return absl::SimpleAtoi(v, &o.batch) && o.batch > 0;
  if (const char* v = value("--repeat=")) return absl::SimpleAtoi(v, &o.repeat) && o.repeat > 0;
  if (const char* v = value("--min_ms=")) return absl::SimpleAtod(v, &o.min_ms) && o.min_ms >= 0;
  if (const char* v = value("--profile=")) return absl::SimpleAtoi(v, &o.profile) && o.profile >= 0;
  if (const char* v = value("--log=")) return *(o.log = v).c_str() != 0;
  if (const char* v = value("--variants=")) {
    o.variants = absl::StrSplit(v, ',', absl::SkipEmpty());
    for (const std::string& name : o.variants) {
      bool known = false;
      for (const Variant& k : kVariants) known |= name == k.name;
      if (!known) return false;
    }
    return !o.variants.empty();
  }
  return false;
}

// One batch of `number` runs; seconds per run, or a negative number when a run failed.
double TimeBatch(runtime::GraphExecutor& exec, const std::vector<runtime::NDArray>& inputs,
                 int number) {
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < number; ++i) {
    if (!exec.Run(inputs).ok()) return -1;
  }
  return Seconds(start) / number;
}

// The `top` slowest steps of exec by their median time over 11 runs.
void PrintProfile(const char* variant, runtime::GraphExecutor& exec,
                  const std::vector<runtime::NDArray>& inputs, int top) {
  const std::vector<std::string> names = exec.StepNames();
  std::vector<std::vector<double>> per_step(names.size());
  for (int r = 0; r < 11; ++r) {
    std::vector<double> seconds;
    if (!exec.Run(inputs, &seconds).ok()) return;
    for (size_t i = 0; i < seconds.size(); ++i) per_step[i].push_back(seconds[i]);
  }
  std::vector<std::pair<double, size_t>> order;
  double total = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    order.push_back({runtime::Median(per_step[i]), i});
    total += order.back().first;
  }
  std::sort(order.rbegin(), order.rend());
  std::printf("  profile %s: steps sum to %.3f ms\n", variant, total * 1e3);
  for (size_t k = 0; k < order.size() && k < static_cast<size_t>(top); ++k) {
    std::printf("    %8.3f ms  %s\n", order[k].first * 1e3, names[order[k].second].c_str());
  }
}

int BenchNetwork(const std::string& name, const Options& o) {
  absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork(name, {.batch = o.batch});
  if (!g.ok()) return Fail(g.status());
  absl::StatusOr<std::vector<runtime::NDArray>> inputs =
      workloads::networks::NetworkInputs(name, *g, 1);
  if (!inputs.ok()) return Fail(inputs.status());
  std::vector<const Variant*> variants;
  for (const std::string& v : o.variants) {
    for (const Variant& k : kVariants) {
      if (v == k.name) variants.push_back(&k);
    }
  }
  const size_t n = variants.size();
  std::optional<search::ApplyHistoryBest> log;
  if (!o.log.empty()) {
    absl::StatusOr<search::ApplyHistoryBest> read =
        search::ApplyHistoryBest::FromLogs(absl::StrSplit(o.log, ',', absl::SkipEmpty()));
    if (!read.ok()) return Fail(read.status());
    log.emplace(*std::move(read));
  }
  std::vector<CompiledModel> models;
  std::vector<runtime::GraphExecutor> execs;
  for (const Variant* v : variants) {
    CompileOptions options = v->options;
    options.run_threads = o.threads;
    absl::StatusOr<CompiledModel> m =
        Compile(*g, target::Target::Llvm(), log ? &*log : nullptr, options);
    if (!m.ok()) return Fail(m.status());
    absl::StatusOr<runtime::GraphExecutor> e = MakeExecutor(*m, {.threads = o.threads});
    if (!e.ok()) return Fail(e.status());
    models.push_back(*std::move(m));
    execs.push_back(*std::move(e));
  }
  // Warm-up, and each variant's batch size.
  std::vector<int> number(n);
  for (size_t v = 0; v < n; ++v) {
    double t = 0;
    for (int w = 0; w < 2; ++w) t = TimeBatch(execs[v], *inputs, 1);
    if (t < 0) return Fail(absl::InternalError(absl::StrCat(variants[v]->name, ": a run failed")));
    number[v] = std::max(1, static_cast<int>(o.min_ms * 1e-3 / std::max(t, 1e-6)));
  }
  std::vector<std::vector<double>> times(n);
  for (int r = 0; r < o.repeat; ++r) {
    for (size_t v = 0; v < n; ++v) times[v].push_back(TimeBatch(execs[v], *inputs, number[v]));
  }
  std::vector<double> median(n);
  for (size_t v = 0; v < n; ++v) median[v] = runtime::Median(times[v]);
  std::printf("%s (batch %lld, %d threads, median of %d)\n", name.c_str(),
              static_cast<long long>(o.batch), o.threads, o.repeat);
  for (size_t v = 0; v < n; ++v) {
    const CompiledModel& m = models[v];
    const CompileStats& s = m.stats;
    std::printf(
        "  %-14s %9.3f ms  x%.3f  steps %3zu (fused %2d) kernels %3zu  memory %7.2f MB "
        "(naive %7.2f MB)  compile %.2f s (passes %.2f, select %.2f, lower %.2f, build %.2f, "
        "params %.2f)\n",
        variants[v]->name, median[v] * 1e3, median[0] / median[v], m.steps.size(),
        m.NumFusedSteps(), m.kernels.size(), m.memory.peak_bytes / 1e6, m.memory.naive_bytes / 1e6,
        s.total, s.optimize, s.select, s.instantiate, s.build, s.parameters);
  }
  for (size_t v = 0; v < n && o.profile > 0; ++v) {
    PrintProfile(variants[v]->name, execs[v], *inputs, o.profile);
  }
  return 0;
}

int Run(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!ParseFlag(argv[i], o)) {
      std::fprintf(stderr,
                   "usage: %s [--networks=a,b] [--threads=N] [--batch=N] [--repeat=N] "
                   "[--min_ms=MS] [--profile=N] [--log=L1,L2]\nbad argument: %s\n",
                   argv[0], argv[i]);
      return 2;
    }
  }
  runtime::ThreadPool::Global().SetNumThreads(o.threads);
  for (const std::string& name : o.networks) {
    if (int rc = BenchNetwork(name, o); rc != 0) return rc;
  }
  return 0;
}

}  // namespace
}  // namespace tessel::driver

int main(int argc, char** argv) { return tessel::driver::Run(argc, argv); }
