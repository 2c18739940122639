#include "experiments/report.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cmath>

namespace tessel::experiments {
namespace {

const WorkloadReport* FindWorkload(const ReportInput& input, const std::string& name) {
  for (const WorkloadReport& w : input.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

double BaselineSeconds(const WorkloadReport* w) {
  return w != nullptr && w->baseline ? w->baseline->seconds : 0;
}

double Gflops(double flops, double seconds) {
  return std::isfinite(seconds) && seconds > 0 ? flops / seconds * 1e-9 : 0;
}

std::string Cell(const std::optional<int>& v) { return v ? absl::StrCat(*v) : ""; }
std::string Cell(const std::optional<double>& v) { return v ? absl::StrFormat("%.4f", *v) : ""; }

// "12", "12.5", or "never" for an empty median.
std::string MedianText(const std::optional<double>& v, const char* empty) {
  if (!v) return empty;
  if (*v == std::floor(*v)) return absl::StrFormat("%.0f", *v);
  return absl::StrFormat("%.1f", *v);
}

bool MultipleWorkloads(const ReportInput& input) {
  return input.config != nullptr && input.config->workloads.size() > 1;
}

// One strategy's runs on one workload, summarised over its seeds.
struct StrategyMedians {
  int seeds = 0;    // runs with at least one trial
  int reached = 0;  // of them, those that reached the baseline
  std::optional<double> trials, trials_to_baseline, trials_to_90pct, final_speedup, best_gflops;
  std::optional<double> share_within_90pct;
};

StrategyMedians MediansOf(const ReportInput& input, const WorkloadReport& w,
                          const std::string& strategy) {
  std::vector<std::optional<double>> trials, to_baseline, to_90, speedup, gflops, share;
  StrategyMedians m;
  for (const RunReport& run : input.runs) {
    if (run.workload != w.name || run.strategy != strategy || run.trials.empty()) continue;
    const RunSummary r = Summarize(run.trials, BaselineSeconds(&w));
    ++m.seeds;
    if (r.trials_to_baseline) ++m.reached;
    trials.push_back(r.trials);
    to_baseline.push_back(r.trials_to_baseline);
    to_90.push_back(r.trials_to_90pct_of_final);
    speedup.push_back(r.final_speedup);
    gflops.push_back(Gflops(w.flops, r.final_best_seconds));
    share.push_back(r.share_within_90pct);
  }
  m.trials = MedianOfOptional(trials);
  m.trials_to_baseline = MedianOfOptional(to_baseline);
  m.trials_to_90pct = MedianOfOptional(to_90);
  m.final_speedup = MedianOfOptional(speedup);
  m.best_gflops = MedianOfOptional(gflops);
  m.share_within_90pct = MedianOfOptional(share);
  return m;
}

}  // namespace

std::string TrialsCsv(const ReportInput& input) {
  std::string csv =
      "workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup\n";
  for (const RunReport& run : input.runs) {
    const WorkloadReport* w = FindWorkload(input, run.workload);
    const double flops = w != nullptr ? w->flops : 0;
    const double baseline = BaselineSeconds(w);
    const std::vector<double> best = RunningBest(run.trials);
    for (size_t t = 0; t < run.trials.size(); ++t) {
      const Trial& trial = run.trials[t];
      const bool ok = std::isfinite(trial.cost_seconds) && trial.cost_seconds > 0;
      const std::string speedup =
          baseline <= 0
              ? ""
              : absl::StrFormat("%.4f", std::isfinite(best[t]) ? baseline / best[t] : 0.0);
      absl::StrAppend(&csv, run.workload, ",", run.strategy, ",", run.seed, ",", t + 1, ",",
                      trial.config_index, ",", trial.error, ",",
                      ok ? absl::StrFormat("%.3f", Gflops(flops, trial.cost_seconds)) : "", ",",
                      absl::StrFormat("%.3f", Gflops(flops, best[t])), ",", speedup, "\n");
    }
  }
  return csv;
}

std::string SummaryCsv(const ReportInput& input) {
  const bool by_workload = MultipleWorkloads(input);
  std::string csv = absl::StrCat(by_workload ? "workload," : "",
                                 "strategy,seed,trials_to_baseline,trials_to_90pct_of_final,"
                                 "final_speedup\n");
  for (const RunReport& run : input.runs) {
    if (run.trials.empty()) continue;
    const RunSummary s = Summarize(run.trials, BaselineSeconds(FindWorkload(input, run.workload)));
    absl::StrAppend(&csv, by_workload ? absl::StrCat(run.workload, ",") : "", run.strategy, ",",
                    run.seed, ",", Cell(s.trials_to_baseline), ",",
                    Cell(s.trials_to_90pct_of_final), ",", Cell(s.final_speedup), "\n");
  }
  return csv;
}

std::string SummaryMarkdown(const ReportInput& input) {
  const ExperimentConfig& config = *input.config;
  std::string md = absl::StrCat("# Experiment `", config.name, "`\n\n");
  absl::StrAppend(&md, "- written: ", input.date, "\n");
  for (absl::string_view line : absl::StrSplit(input.machine, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&md, "- ", std::string(line), "\n");
  }
  absl::StrAppend(
      &md, "- config: ",
      config.source_path.empty() ? "(text)" : absl::StrCat("`", config.source_path, "`"), "; ",
      config.trials, " trials x ", config.seeds.size(), " seed(s) per strategy\n");
  int finished = 0;
  for (const RunReport& run : input.runs) finished += run.finished ? 1 : 0;
  absl::StrAppend(&md, "- runs finished: ", finished, " of ", input.runs.size(),
                  finished < static_cast<int>(input.runs.size())
                      ? " (rerun the same command to continue; finished runs are kept)"
                      : "",
                  "\n");

  const bool any_baseline = std::any_of(input.workloads.begin(), input.workloads.end(),
                                        [](const WorkloadReport& w) { return w.baseline; });
  absl::StrAppend(&md, "\n## Workloads", any_baseline ? " and the oneDNN baseline" : "", "\n\n");
  absl::StrAppend(&md, "| workload | template | GFLOP |",
                  any_baseline ? " oneDNN ms | oneDNN GFLOPS | oneDNN kernel | repeats |" : "",
                  "\n|---|---|---:|", any_baseline ? "---:|---:|---|---:|" : "", "\n");
  for (const WorkloadReport& w : input.workloads) {
    absl::StrAppend(&md, "| ", w.name, " | `", w.template_name, "` | ",
                    absl::StrFormat("%.3g", w.flops * 1e-9), " |");
    if (any_baseline) {
      if (w.baseline) {
        absl::StrAppend(
            &md, absl::StrFormat(" %.4f | %.1f | %s | %d |", w.baseline->seconds * 1e3,
                                 Gflops(w.flops, w.baseline->seconds), w.baseline->implementation,
                                 w.baseline->repeats.size()));
      } else {
        absl::StrAppend(&md, " | | | |");
      }
    }
    absl::StrAppend(&md, "\n");
  }
  if (any_baseline) {
    absl::StrAppend(&md,
                    "\noneDNN: median of the timed repeats after warm-up, measured in this "
                    "process with the config's thread count. speedup = oneDNN time / the best "
                    "mean cost found so far.\n");
  }

  for (const WorkloadReport& w : input.workloads) {
    absl::StrAppend(&md, "\n## ", w.name, " (`", w.template_name, "`)\n\n");
    for (const auto& [workload, png] : input.plots) {
      if (workload == w.name) absl::StrAppend(&md, "![", w.name, "](", png, ")\n\n");
    }
    absl::StrAppend(&md,
                    "Medians over seeds (\"never\": more than half of the seeds did not get "
                    "there).\n\n");
    absl::StrAppend(&md,
                    "| strategy | cost model | explorer | seeds | trials | trials to oneDNN | "
                    "trials to 90% of final | trials within 90% of final | final speedup | "
                    "best GFLOPS |\n"
                    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const StrategySpec& s : config.strategies) {
      const StrategyMedians m = MediansOf(input, w, s.name);
      absl::StrAppend(
          &md, "| ", s.name, " | ", s.cost_model.empty() ? "-" : s.cost_model, " | ", s.explorer,
          " | ", m.seeds, " | ", MedianText(m.trials, "-"), " | ",
          w.baseline ? absl::StrCat(MedianText(m.trials_to_baseline, "never"), " (", m.reached, "/",
                                    m.seeds, " reached)")
                     : "-",
          " | ", MedianText(m.trials_to_90pct, "-"), " | ",
          m.share_within_90pct ? absl::StrFormat("%.0f%%", 100 * *m.share_within_90pct) : "-",
          " | ", m.final_speedup ? absl::StrFormat("%.3f", *m.final_speedup) : "-", " | ",
          m.best_gflops ? absl::StrFormat("%.1f", *m.best_gflops) : "-", " |\n");
    }
  }

  absl::StrAppend(&md, "\n## Config\n\n```yaml\n", config.source_text);
  if (!config.source_text.empty() && config.source_text.back() != '\n') md += "\n";
  absl::StrAppend(&md, "```\n");
  return md;
}

std::string SummaryTable(const ReportInput& input) {
  std::string text;
  for (const WorkloadReport& w : input.workloads) {
    absl::StrAppend(
        &text, w.name, " (", w.template_name, ")",
        w.baseline ? absl::StrFormat(", oneDNN %.4f ms = %.1f GFLOPS", w.baseline->seconds * 1e3,
                                     Gflops(w.flops, w.baseline->seconds))
                   : "",
        "\n");
    absl::StrAppend(
        &text, absl::StrFormat("  %-16s %5s %7s %11s %8s %10s %8s %8s\n", "strategy", "seeds",
                               "trials", "to oneDNN", "to 90%", "within 90%", "speedup", "GFLOPS"));
    for (const StrategySpec& s : input.config->strategies) {
      const StrategyMedians m = MediansOf(input, w, s.name);
      absl::StrAppend(
          &text,
          absl::StrFormat(
              "  %-16s %5d %7s %11s %8s %10s %8s %8s\n", s.name, m.seeds, MedianText(m.trials, "-"),
              w.baseline ? MedianText(m.trials_to_baseline, "never") : "-",
              MedianText(m.trials_to_90pct, "-"),
              m.share_within_90pct ? absl::StrFormat("%.0f%%", 100 * *m.share_within_90pct) : "-",
              m.final_speedup ? absl::StrFormat("%.3f", *m.final_speedup) : "-",
              m.best_gflops ? absl::StrFormat("%.1f", *m.best_gflops) : "-"));
    }
  }
  absl::StrAppend(&text,
                  "(medians over seeds; to oneDNN / to 90%: trials until the best config reached "
                  "oneDNN's time / 90% of its final speed; within 90%: share of the trials that "
                  "were)\n");
  return text;
}

}  // namespace tessel::experiments
