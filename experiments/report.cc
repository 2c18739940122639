#include "experiments/report.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

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

// The lowest cost any run of the workload reached; +infinity when none succeeded.
double OverallBestSeconds(const ReportInput& input, const std::string& workload) {
  double best = std::numeric_limits<double>::infinity();
  for (const RunReport& run : input.runs) {
    if (run.workload != workload) continue;
    for (const Trial& t : run.trials) {
      if (t.cost_seconds > 0 && std::isfinite(t.cost_seconds))
        best = std::min(best, t.cost_seconds);
    }
  }
  return best;
}

// One strategy's runs on one workload, summarised over its seeds.
struct StrategyMedians {
  int seeds = 0;    // runs with at least one trial
  int reached = 0;  // of them, those that reached the baseline
  std::optional<double> trials, trials_to_baseline, trials_to_90pct, trials_to_90pct_of_best;
  std::optional<double> final_speedup, best_gflops, share_within_90pct;
  std::vector<std::optional<double>> gflops_at;  // per checkpoint of the config's trials
  // Medians over the runs that recorded their times; empty when none did.
  std::optional<double> trials_per_minute, plan_share, fit_share, measure_share;
};

StrategyMedians MediansOf(const ReportInput& input, const WorkloadReport& w,
                          const std::string& strategy) {
  const std::vector<int> checkpoints = Checkpoints(input.config->trials);
  const double overall_best = OverallBestSeconds(input, w.name);
  std::vector<std::optional<double>> trials, to_baseline, to_90, to_90_best, speedup, gflops, share;
  std::vector<std::vector<std::optional<double>>> at(checkpoints.size());
  std::vector<std::optional<double>> rate, plan, fit, measure;
  StrategyMedians m;
  for (const RunReport& run : input.runs) {
    if (run.workload != w.name || run.strategy != strategy || run.trials.empty()) continue;
    const RunSummary r = Summarize(run.trials, BaselineSeconds(&w));
    const std::vector<double> best = RunningBest(run.trials);
    ++m.seeds;
    if (r.trials_to_baseline) ++m.reached;
    trials.push_back(r.trials);
    to_baseline.push_back(r.trials_to_baseline);
    to_90.push_back(r.trials_to_90pct_of_final);
    to_90_best.push_back(TrialsToReach(best, overall_best, 0.9));
    speedup.push_back(r.final_speedup);
    gflops.push_back(Gflops(w.flops, r.final_best_seconds));
    share.push_back(r.share_within_90pct);
    for (size_t c = 0; c < checkpoints.size(); ++c) {
      const std::optional<double> b = BestAfter(best, checkpoints[c]);
      at[c].push_back(b ? std::optional<double>(Gflops(w.flops, *b)) : std::nullopt);
    }
    if (run.times && run.times->measured > 0 && run.times->total() > 0) {
      const RunTimes& t = *run.times;
      rate.push_back(60.0 * t.measured / t.total());
      plan.push_back(t.plan / t.total());
      fit.push_back(t.fit / t.total());
      measure.push_back(t.measure / t.total());
    }
  }
  m.trials = MedianOfOptional(trials);
  m.trials_to_baseline = MedianOfOptional(to_baseline);
  m.trials_to_90pct = MedianOfOptional(to_90);
  m.trials_to_90pct_of_best = MedianOfOptional(to_90_best);
  m.final_speedup = MedianOfOptional(speedup);
  m.best_gflops = MedianOfOptional(gflops);
  m.share_within_90pct = MedianOfOptional(share);
  for (const std::vector<std::optional<double>>& values : at) {
    m.gflops_at.push_back(MedianOfOptional(values));
  }
  m.trials_per_minute = MedianOfOptional(rate);
  m.plan_share = MedianOfOptional(plan);
  m.fit_share = MedianOfOptional(fit);
  m.measure_share = MedianOfOptional(measure);
  return m;
}

std::string Percent(const std::optional<double>& share) {
  return share ? absl::StrFormat("%.0f%%", 100 * *share) : "-";
}

std::string Fixed1(const std::optional<double>& v) { return v ? absl::StrFormat("%.1f", *v) : "-"; }

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
  const std::vector<int> checkpoints = Checkpoints(input.config->trials);
  std::string csv = absl::StrCat(by_workload ? "workload," : "",
                                 "strategy,seed,trials_to_baseline,trials_to_90pct_of_final,"
                                 "final_speedup,trials_to_90pct_of_best");
  for (int n : checkpoints) absl::StrAppend(&csv, ",best_gflops_at_", n);
  csv += "\n";
  // The best of every run of a workload, computed once per workload.
  std::map<std::string, double> overall_best;
  auto best_of = [&](const std::string& workload) {
    auto [it, fresh] = overall_best.try_emplace(workload, 0.0);
    if (fresh) it->second = OverallBestSeconds(input, workload);
    return it->second;
  };
  for (const RunReport& run : input.runs) {
    if (run.trials.empty()) continue;
    const WorkloadReport* w = FindWorkload(input, run.workload);
    const double flops = w != nullptr ? w->flops : 0;
    const RunSummary s = Summarize(run.trials, BaselineSeconds(w));
    const std::vector<double> best = RunningBest(run.trials);
    absl::StrAppend(&csv, by_workload ? absl::StrCat(run.workload, ",") : "", run.strategy, ",",
                    run.seed, ",", Cell(s.trials_to_baseline), ",",
                    Cell(s.trials_to_90pct_of_final), ",", Cell(s.final_speedup), ",",
                    Cell(TrialsToReach(best, best_of(run.workload), 0.9)));
    for (int n : checkpoints) {
      const std::optional<double> b = BestAfter(best, n);
      absl::StrAppend(&csv, ",", b ? absl::StrFormat("%.3f", Gflops(flops, *b)) : "");
    }
    csv += "\n";
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
    const double overall_best = OverallBestSeconds(input, w.name);
    if (std::isfinite(overall_best)) {
      absl::StrAppend(&md,
                      absl::StrFormat("The best over every strategy and seed: %.1f GFLOPS; \"90%% "
                                      "of best\" is 90%% of its speed.\n\n",
                                      Gflops(w.flops, overall_best)));
    }
    absl::StrAppend(&md,
                    "| strategy | cost model | explorer | seeds | trials | trials to oneDNN | "
                    "trials to 90% of best | trials to 90% of final | trials within 90% of final "
                    "| final speedup | best GFLOPS |\n"
                    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::vector<StrategyMedians> medians;
    for (const StrategySpec& s : config.strategies) medians.push_back(MediansOf(input, w, s.name));
    for (size_t i = 0; i < medians.size(); ++i) {
      const StrategySpec& s = config.strategies[i];
      const StrategyMedians& m = medians[i];
      absl::StrAppend(&md, "| ", s.name, " | ", s.cost_model.empty() ? "-" : s.cost_model, " | ",
                      s.explorer, " | ", m.seeds, " | ", MedianText(m.trials, "-"), " | ",
                      w.baseline ? absl::StrCat(MedianText(m.trials_to_baseline, "never"), " (",
                                                m.reached, "/", m.seeds, " reached)")
                                 : "-",
                      " | ", MedianText(m.trials_to_90pct_of_best, "never"), " | ",
                      MedianText(m.trials_to_90pct, "-"), " | ", Percent(m.share_within_90pct),
                      " | ", m.final_speedup ? absl::StrFormat("%.3f", *m.final_speedup) : "-",
                      " | ", Fixed1(m.best_gflops), " |\n");
    }
    const std::vector<int> checkpoints = Checkpoints(config.trials);
    if (!checkpoints.empty()) {
      absl::StrAppend(&md, "\nBest GFLOPS after N trials (median over seeds; -: fewer trials).\n\n",
                      "| strategy |");
      for (int n : checkpoints) absl::StrAppend(&md, " ", n, " |");
      absl::StrAppend(&md, "\n|---|");
      for (size_t c = 0; c < checkpoints.size(); ++c) md += "---:|";
      md += "\n";
      for (size_t i = 0; i < medians.size(); ++i) {
        absl::StrAppend(&md, "| ", config.strategies[i].name, " |");
        for (const std::optional<double>& g : medians[i].gflops_at) {
          absl::StrAppend(&md, " ", Fixed1(g), " |");
        }
        md += "\n";
      }
    }
    if (std::any_of(medians.begin(), medians.end(),
                    [](const StrategyMedians& m) { return m.trials_per_minute.has_value(); })) {
      absl::StrAppend(&md,
                      "\nWhere the tuning time went (median over the seeds that recorded it; plan: "
                      "the explorer and the model's predictions with the features they need; "
                      "measure: building and running).\n\n"
                      "| strategy | trials/min | measure | plan | fit |\n"
                      "|---|---:|---:|---:|---:|\n");
      for (size_t i = 0; i < medians.size(); ++i) {
        const StrategyMedians& m = medians[i];
        absl::StrAppend(&md, "| ", config.strategies[i].name, " | ", Fixed1(m.trials_per_minute),
                        " | ", Percent(m.measure_share), " | ", Percent(m.plan_share), " | ",
                        Percent(m.fit_share), " |\n");
      }
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
        &text, absl::StrFormat("  %-16s %5s %7s %11s %11s %8s %10s %8s %8s\n", "strategy", "seeds",
                               "trials", "to oneDNN", "to 90% best", "to 90%", "within 90%",
                               "speedup", "GFLOPS"));
    for (const StrategySpec& s : input.config->strategies) {
      const StrategyMedians m = MediansOf(input, w, s.name);
      absl::StrAppend(
          &text, absl::StrFormat("  %-16s %5d %7s %11s %11s %8s %10s %8s %8s\n", s.name, m.seeds,
                                 MedianText(m.trials, "-"),
                                 w.baseline ? MedianText(m.trials_to_baseline, "never") : "-",
                                 MedianText(m.trials_to_90pct_of_best, "never"),
                                 MedianText(m.trials_to_90pct, "-"), Percent(m.share_within_90pct),
                                 m.final_speedup ? absl::StrFormat("%.3f", *m.final_speedup) : "-",
                                 Fixed1(m.best_gflops)));
    }
  }
  absl::StrAppend(&text,
                  "(medians over seeds; to oneDNN / to 90% best / to 90%: trials until the best "
                  "config reached oneDNN's time / 90% of the best speed of any run of the "
                  "workload / 90% of its own final speed; within 90%: share of the trials that "
                  "were within 90% of its final speed)\n");
  return text;
}

}  // namespace tessel::experiments
