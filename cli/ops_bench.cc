#include "cli/ops_bench.h"

#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "cli/flags.h"
#include "cli/gpu_ops_bench.h"
#include "cli/target_flag.h"
#include "cli/vdla_ops_bench.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "experiments/bench_target.h"
#include "experiments/side_benches.h"
#include "search/records/apply_history_best.h"
#include "workloads/table2.h"

namespace tessel::cli {
namespace {

// The layers named by --layers (all of the suite when empty), in the suite's order.
absl::StatusOr<std::vector<workloads::Layer>> ChooseLayers(const std::string& names) {
  const std::vector<workloads::Layer>& all = workloads::Table2();
  if (names.empty()) return all;
  std::vector<workloads::Layer> chosen;
  for (absl::string_view name : absl::StrSplit(names, ',')) {
    absl::StatusOr<workloads::Layer> layer = workloads::FindLayer(std::string(name));
    if (!layer.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--layers: ", layer.status().message()));
    }
    chosen.push_back(*layer);
  }
  return chosen;
}

}  // namespace

absl::Status BenchOps(std::span<const std::string> args, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(
      Flags flags,
      Flags::Parse("bench ops", args,
                   {{"suite", "operator suite: table2"},
                    {"target",
                     "llvm target (default llvm: this host's CPU), cuda / opencl, or vdla (the "
                     "RTL simulator's cycles)"},
                    {"threads", "threads for both sides"},
                    {"layers", "comma-separated layer names (default: all)"},
                    {"repeat", "timed repeats (>= 5)"},
                    {"log",
                     "tuning logs, comma-separated: the best config per layer "
                     "instead of the fallback (tessel tune / experiment)"},
                    {"out",
                     "with --target vdla: a folder for Fig. 10, the roofline (fig10.csv, "
                     "fig10.png)"}}));
  const std::string suite = flags.String("suite", "table2");
  if (suite != "table2") {
    return absl::InvalidArgumentError(
        absl::StrCat("--suite '", suite, "' is not a suite; known: table2"));
  }
  const std::string target_text = flags.String("target", "llvm");
  absl::StatusOr<target::Target> gpu_target = target::Target::Parse(target_text);
  const bool gpu =
      gpu_target.ok() && (gpu_target->kind() == "cuda" || gpu_target->kind() == "opencl");
  const bool vdla = gpu_target.ok() && gpu_target->kind() == "vdla";
  std::optional<search::ApplyHistoryBest> history;
  const std::string log = flags.String("log", "");
  if (!log.empty()) {
    std::vector<std::string> logs = absl::StrSplit(log, ',', absl::SkipEmpty());
    TESSEL_ASSIGN_OR_RETURN(search::ApplyHistoryBest read,
                            search::ApplyHistoryBest::FromLogs(logs));
    history.emplace(std::move(read));
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, flags.Int("threads", 1));
  TESSEL_ASSIGN_OR_RETURN(int64_t repeat, flags.Int("repeat", 7));
  if (gpu && !flags.String("threads", "").empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--threads applies to CPU targets; --target '",
                                                   target_text, "' runs on a GPU"));
  }
  const std::string out_dir = flags.String("out", "");
  if (!vdla && !out_dir.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out applies to --target vdla (Fig. 10's roofline); --target '", target_text,
                     "' writes no figure"));
  }
  if (vdla) {
    for (const char* flag : {"threads", "repeat"}) {
      if (!flags.String(flag, "").empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", flag,
                         " does not apply to --target vdla: its cycle counts are "
                         "simulated, the same on every run"));
      }
    }
  }
  if (threads < 1 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads must be between 1 and 1024, got ", threads));
  }
  if (repeat < 5 || repeat > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repeat must be between 5 and 1000, got ", repeat));
  }
  TESSEL_ASSIGN_OR_RETURN(std::vector<workloads::Layer> layers,
                          ChooseLayers(flags.String("layers", "")));
  if (vdla) {
    return BenchVdlaOps(*gpu_target, layers,
                        {.history = history ? &*history : nullptr, .log = log, .out_dir = out_dir},
                        out);
  }
  if (gpu) {
    return BenchGpuOps(
        *gpu_target, layers,
        {.repeat = static_cast<int>(repeat), .history = history ? &*history : nullptr, .log = log},
        out);
  }
  TESSEL_ASSIGN_OR_RETURN(const target::Target target, HostTargetFlag(target_text));
  runtime::ThreadPool::Global().SetNumThreads(static_cast<int>(threads));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  // The templates size their parallel loops for the threads the programs run on.
  facts.cores = static_cast<int>(threads);

  out << experiments::BenchMetadata(target, static_cast<int>(threads));
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  out << "oneDNN: OpenMP, GOMP_SPINCOUNT=" << (spin != nullptr ? spin : "unset (libgomp's default)")
      << "\n";
  out << "suite: table2 (the paper's Table 2), batch 1, float32; ours: the strategy's template "
      << (history ? "with the best config of " + log + " (the fallback where it has none)"
                  : std::string("with its untuned fallback config"))
      << "\n\n";
  // With a log, a column says whether each layer ran a tuned config.
  auto config_column = [&](const std::string& text) {
    return history ? absl::StrFormat("%-9s ", text) : std::string();
  };
  out << absl::StrFormat("%-5s %7s %-28s %9s %9s %6s %5s  %s%s\n", "layer", "GFLOP", "template",
                         "ours ms", "oneDNN ms", "ratio", "idle%", config_column("config"),
                         "correct");
  experiments::RoundRobinOptions timer;
  timer.repeat = static_cast<int>(repeat);
  timer.warmup = 2;
  timer.min_repeat_ms = 50;
  std::vector<double> all, conv, depthwise;
  double interference = 0;
  bool all_correct = true;
  for (const workloads::Layer& layer : layers) {
    TESSEL_ASSIGN_OR_RETURN(
        const experiments::LayerComparison row,
        experiments::CompareLayer(
            layer, facts, static_cast<int>(threads), timer,
            {.history = history ? &*history : nullptr, .forced_config = nullptr}));
    out << absl::StrFormat("%-5s %7.3f %-28s %9.3f %9.3f %6.2f %5.1f  %s%s\n", row.layer, row.gflop,
                           row.template_name, row.timing.ours_ms, row.timing.theirs_ms,
                           row.timing.ratio, row.timing.interference * 100,
                           config_column(row.config), row.correct);
    out.flush();
    all.push_back(row.timing.ratio);
    (row.conv ? conv : depthwise).push_back(row.timing.ratio);
    all_correct = all_correct && row.correct == "yes";
    interference = std::max(interference, row.timing.interference);
  }
  out << absl::StrFormat(
      "\n(%d interleaved repeats after warm-up, each side in a process of its own and timed while "
      "the other is idle; idle%%: the most CPU the idle side used during the other's repeats, in "
      "%% of a core (at most %.1f%%); ratio = median of per-repeat oneDNN time / ours; layout "
      "conversions excluded on both sides)\n",
      timer.repeat, interference * 100);
  if (!conv.empty()) {
    out << absl::StrFormat("median ratio on C layers = %.3f\n", runtime::Median(conv));
  }
  if (!depthwise.empty()) {
    out << absl::StrFormat("median ratio on D layers = %.3f\n", runtime::Median(depthwise));
  }
  out << absl::StrFormat("median ratio vs oneDNN = %.3f\n", runtime::Median(all));
  if (!all_correct) {
    return absl::InternalError("some layers computed wrong results (see the 'correct' column)");
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
