#include "experiments/models_report.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>

#include "compiler/runtime/timer.h"

namespace tessel::experiments {
namespace {

double Ms(double seconds) { return seconds * 1e3; }

struct Row {
  double median_ms, min_ms, max_ms, speedup;
};

Row RowOf(const ModelComparison& c, const VariantTiming& v) {
  Row r{};
  r.median_ms = Ms(runtime::Median(v.seconds));
  r.min_ms = v.seconds.empty() ? 0 : Ms(*std::min_element(v.seconds.begin(), v.seconds.end()));
  r.max_ms = v.seconds.empty() ? 0 : Ms(*std::max_element(v.seconds.begin(), v.seconds.end()));
  r.speedup = PairedSpeedup(c.variants.front(), v);
  return r;
}

const VariantSpec* FindVariant(const ModelsConfig& config, const std::string& name) {
  for (const VariantSpec& v : config.variants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::string KernelsText(const VariantTiming& v, bool tuned) {
  if (v.libtorch) return "-";
  std::string text = absl::StrCat(v.steps, " (", v.fused_steps, " fused)");
  if (tuned) absl::StrAppend(&text, ", ", v.tuned_kernels, "/", v.kernels, " tuned");
  return text;
}

// The most CPU an idle variant used while another was timed, over every network, in cores.
double MaxInterference(const ModelsReportInput& input) {
  double most = 0;
  for (const ModelComparison& c : input.results) {
    for (const VariantTiming& v : c.variants) most = std::max(most, v.max_interference);
  }
  return most;
}

}  // namespace

std::string DescribeVariant(const VariantSpec& v) {
  if (v.libtorch) return "libtorch";
  if (!v.optimize_graph) return "Tessel without graph optimizations";
  return v.fuse ? "Tessel with graph optimizations and fusion"
                : "Tessel with graph optimizations, fusion off";
}

std::string ModelsSummaryCsv(const ModelsReportInput& input) {
  std::string csv = "network,variant,median_ms,min_ms,max_ms,speedup\n";
  for (const ModelComparison& c : input.results) {
    for (const VariantTiming& v : c.variants) {
      const Row r = RowOf(c, v);
      absl::StrAppend(
          &csv, c.network, ",", v.name, ",",
          absl::StrFormat("%.4f,%.4f,%.4f,%.4f", r.median_ms, r.min_ms, r.max_ms, r.speedup), "\n");
    }
  }
  return csv;
}

std::string ModelsTimesCsv(const ModelsReportInput& input) {
  std::string csv = "network,variant,repeat,ms,runs_per_repeat\n";
  for (const ModelComparison& c : input.results) {
    for (const VariantTiming& v : c.variants) {
      for (size_t i = 0; i < v.seconds.size(); ++i) {
        absl::StrAppend(&csv, c.network, ",", v.name, ",", i + 1, ",",
                        absl::StrFormat("%.5f", Ms(v.seconds[i])), ",", v.runs_per_repeat, "\n");
      }
    }
  }
  return csv;
}

std::string ModelsSummaryMarkdown(const ModelsReportInput& input) {
  const ModelsConfig& config = *input.config;
  const bool tuned = config.tuning.has_value();
  std::string md = absl::StrCat("# Experiment `", config.name, "`\n\n");
  absl::StrAppend(&md, "- written: ", input.date, "\n");
  for (absl::string_view line : absl::StrSplit(input.machine, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&md, "- ", std::string(line), "\n");
  }
  absl::StrAppend(
      &md, "- config: ",
      config.source_path.empty() ? "(text)" : absl::StrCat("`", config.source_path, "`"), "; ",
      config.networks.size(), " network(s) x ", config.variants.size(), " variant(s), batch ",
      config.batch, "\n");
  absl::StrAppend(
      &md,
      absl::StrFormat("- measured: each variant of a network in a process of its own, timed in "
                      "turn, the median of %d rounds after %d warm-up round(s); in each round a "
                      "variant runs once untimed, then back to back for at least %g ms, and its "
                      "time is the mean per run; it starts once the other variants are idle "
                      "(they used at most %.1f%% of a core during its runs)\n",
                      config.repeat, config.warmup, config.min_repeat_ms,
                      100 * MaxInterference(input)));
  if (tuned) {
    const ModelsTuningSpec& t = *config.tuning;
    absl::StrAppend(&md, "- tuning: ", t.trials, " trials per task, ",
                    t.cost_model.empty() ? t.explorer : absl::StrCat(t.cost_model, "+", t.explorer),
                    t.early_stopping > 0 ? absl::StrCat(", early stopping ", t.early_stopping) : "",
                    "; the Tessel variants use each task's best config\n");
    for (const NetworkTuning& n : input.tuning) {
      absl::StrAppend(&md, "  - ", n.network, ": ", n.tasks, " tasks, ", n.trials, " trials in `",
                      n.log, "`\n");
    }
  } else {
    absl::StrAppend(&md,
                    "- tuning: none (every Tessel kernel uses its template's fallback config)\n");
  }
  absl::StrAppend(&md, "- networks finished: ", input.results.size(), " of ",
                  config.networks.size(), "\n");

  absl::StrAppend(&md, "\n## Results\n\n");
  if (!input.plot.empty()) {
    absl::StrAppend(&md, "![", config.name, "](", input.plot, ")\n\n");
  }
  const std::string first = config.variants.front().name;
  absl::StrAppend(&md,
                  "| network | variant | what | kernel calls | compile s | median ms | min ms | "
                  "max ms | speedup over ",
                  first,
                  " |\n"
                  "|---|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const ModelComparison& c : input.results) {
    for (const VariantTiming& v : c.variants) {
      const Row r = RowOf(c, v);
      const VariantSpec* spec = FindVariant(config, v.name);
      absl::StrAppend(&md, "| ", c.network, " | ", v.name, " | ",
                      spec != nullptr ? DescribeVariant(*spec) : "", " | ", KernelsText(v, tuned),
                      " | ", v.libtorch ? "-" : absl::StrFormat("%.2f", v.compile_seconds),
                      absl::StrFormat(" | %.4f | %.4f | %.4f | %.3f |\n", r.median_ms, r.min_ms,
                                      r.max_ms, r.speedup));
    }
  }
  absl::StrAppend(&md,
                  "\nspeedup: the median over rounds of the first variant's time / this "
                  "variant's time in the same round (> 1: faster). kernel calls: the compiled "
                  "model's steps (each one kernel; fused: several graph nodes in one). compile "
                  "s: driver::Compile's wall time (graph passes, kernels, build)",
                  tuned ? "; tuned: kernels whose config came from the log, of all distinct "
                          "kernels (element-wise ones have nothing to tune)"
                        : "",
                  ".\n");
  if (!input.results.empty()) {
    // Before timing, each Tessel variant's outputs matched the network's reference.
    const std::string tolerance = absl::StrFormat("(atol %g, rtol %g)", config.atol, config.rtol);
    const bool same = std::all_of(
        input.results.begin(), input.results.end(),
        [&](const ModelComparison& c) { return c.reference == input.results.front().reference; });
    if (same) {
      absl::StrAppend(&md, "\nOutputs: before timing, every Tessel variant's outputs matched ",
                      input.results.front().reference, " ", tolerance, ".\n");
    } else {
      std::vector<std::string> references;
      for (const ModelComparison& c : input.results) {
        references.push_back(absl::StrCat(c.network, ": ", c.reference));
      }
      absl::StrAppend(&md, "\nOutputs: before timing, every Tessel variant's outputs matched ",
                      "the network's reference ", tolerance, "; ", absl::StrJoin(references, "; "),
                      ".\n");
    }
  }

  absl::StrAppend(&md, "\n## Config\n\n```yaml\n", config.source_text);
  if (!config.source_text.empty() && config.source_text.back() != '\n') md += "\n";
  absl::StrAppend(&md, "```\n");
  return md;
}

std::string ModelsSummaryTable(const ModelsReportInput& input) {
  const ModelsConfig& config = *input.config;
  std::string text = absl::StrFormat("%-18s %-18s %11s %11s %11s %9s\n", "network", "variant",
                                     "median ms", "min ms", "max ms", "speedup");
  for (const ModelComparison& c : input.results) {
    for (const VariantTiming& v : c.variants) {
      const Row r = RowOf(c, v);
      absl::StrAppend(&text, absl::StrFormat("%-18s %-18s %11.4f %11.4f %11.4f %9.3f\n", c.network,
                                             v.name, r.median_ms, r.min_ms, r.max_ms, r.speedup));
    }
  }
  absl::StrAppend(&text, "(speedup: over ", config.variants.front().name,
                  ", the median over rounds of the per-round time ratio; ", config.repeat,
                  " rounds, threads ", config.threads, ", batch ", config.batch, ")\n");
  return text;
}

}  // namespace tessel::experiments
