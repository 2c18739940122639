// The files of a models experiment from hand-made timings: summary.csv's medians, extremes and
// paired speedups, times.csv's rows, and the pieces summary.md and the terminal table must hold.
#include "experiments/models_report.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tessel::experiments {
namespace {

VariantTiming Timing(const std::string& name, std::vector<double> seconds, bool libtorch = false) {
  VariantTiming v;
  v.name = name;
  v.libtorch = libtorch;
  v.seconds = std::move(seconds);
  v.runs_per_repeat = 3;
  if (!libtorch) {
    v.compile_seconds = 0.5;
    v.steps = 4;
    v.fused_steps = 1;
    v.kernels = 3;
  }
  return v;
}

struct Fixture {
  ModelsConfig config;
  ModelsReportInput input;
};

Fixture Make() {
  Fixture f;
  f.config.name = "demo";
  f.config.source_path = "demo.yaml";
  f.config.source_text = "kind: models\nname: demo\n";
  f.config.repeat = 5;
  f.config.threads = 2;
  f.config.networks = {{"a", 3}, {"b", 3}};
  f.config.variants = {{.name = "torch", .libtorch = true},
                       {.name = "plain", .optimize_graph = false, .fuse = false},
                       {.name = "tessel"}};
  ModelComparison a;
  a.network = "a";
  a.reference = "libtorch (variant 'torch')";
  a.variants = {Timing("torch", {0.002, 0.004, 0.003}, true),
                Timing("plain", {0.002, 0.002, 0.002}), Timing("tessel", {0.001, 0.001, 0.002})};
  f.input.results = {a};
  f.input.machine = "machine: test box\nbuild: commit abc\n";
  f.input.date = "2024-01-01 00:00:00 UTC";
  return f;
}

TEST(ModelsReportTest, SummaryCsv) {
  Fixture f = Make();
  f.input.config = &f.config;
  EXPECT_EQ(ModelsSummaryCsv(f.input),
            "network,variant,median_ms,min_ms,max_ms,speedup\n"
            "a,torch,3.0000,2.0000,4.0000,1.0000\n"
            "a,plain,2.0000,2.0000,2.0000,1.5000\n"     // ratios 1, 2, 1.5
            "a,tessel,1.0000,1.0000,2.0000,2.0000\n");  // ratios 2, 4, 1.5
}

TEST(ModelsReportTest, TimesCsvHasEveryRepeat) {
  Fixture f = Make();
  f.input.config = &f.config;
  const std::string csv = ModelsTimesCsv(f.input);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "network,variant,repeat,ms,runs_per_repeat");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 9);
  EXPECT_NE(csv.find("\na,torch,1,2.00000,3\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\na,tessel,3,2.00000,3\n"), std::string::npos) << csv;
}

TEST(ModelsReportTest, MarkdownAndTable) {
  Fixture f = Make();
  f.input.config = &f.config;
  f.input.plot = "demo.png";
  const std::string md = ModelsSummaryMarkdown(f.input);
  for (const char* piece :
       {"# Experiment `demo`", "- written: 2024-01-01 00:00:00 UTC", "- machine: test box",
        "- build: commit abc", "- config: `demo.yaml`; 2 network(s) x 3 variant(s), batch 1",
        "the median of 5 rounds", "- tuning: none", "- networks finished: 1 of 2",
        "![demo](demo.png)", "| network | variant | what | kernel calls | compile s | median ms |",
        "speedup over torch |",
        "| a | torch | libtorch | - | - | 3.0000 | 2.0000 | 4.0000 | 1.000 |",
        "| a | plain | Tessel without graph optimizations | 4 (1 fused) | 0.50 | 2.0000 |",
        "| a | tessel | Tessel with graph optimizations and fusion | 4 (1 fused) | 0.50 | 1.0000 |",
        "every Tessel variant's outputs matched libtorch (variant 'torch') (atol 0.002",
        "```yaml\nkind: models\nname: demo\n```"}) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
  const std::string table = ModelsSummaryTable(f.input);
  EXPECT_NE(table.find("tessel"), std::string::npos) << table;
  EXPECT_NE(table.find("2.000"), std::string::npos) << table;
  EXPECT_NE(table.find("(speedup: over torch"), std::string::npos) << table;
}

TEST(ModelsReportTest, TuningIsReported) {
  Fixture f = Make();
  f.config.tuning = ModelsTuningSpec{.trials = 40, .early_stopping = 10};
  f.input.config = &f.config;
  f.input.tuning = {{"a", "logs/a.jsonl", 3, 117}};
  f.input.results[0].variants[2].tuned_kernels = 2;
  const std::string md = ModelsSummaryMarkdown(f.input);
  for (const char* piece :
       {"- tuning: 40 trials per task, xgb+sa, early stopping 10",
        "  - a: 3 tasks, 117 trials in `logs/a.jsonl`", "| 4 (1 fused), 2/3 tuned |"}) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
}

TEST(ModelsReportTest, DescribesVariants) {
  EXPECT_EQ(DescribeVariant({.name = "x", .libtorch = true}), "libtorch");
  EXPECT_EQ(DescribeVariant({.name = "x", .optimize_graph = false, .fuse = false}),
            "Tessel without graph optimizations");
  EXPECT_EQ(DescribeVariant({.name = "x", .optimize_graph = true, .fuse = false}),
            "Tessel with graph optimizations, fusion off");
}

}  // namespace
}  // namespace tessel::experiments
