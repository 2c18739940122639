// The text of trials.csv, summary.csv and summary.md for a hand-made experiment, and atomic
// writing of output files.
#include "experiments/report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "compiler/support/atomic_file.h"
#include "experiments/test_files.h"

namespace tessel::experiments {
namespace {

constexpr double kFail = std::numeric_limits<double>::infinity();

ExperimentConfig Config(int workloads) {
  ExperimentConfig c;
  c.name = "demo";
  c.trials = 3;
  c.seeds = {0, 1};
  for (int i = 0; i < workloads; ++i)
    c.workloads.push_back({i == 0 ? "C6" : "C2", "", {}, true, 1});
  c.strategies.push_back({.name = "xgb+sa", .cost_model = "xgb", .explorer = "sa"});
  c.strategies.push_back({.name = "random", .cost_model = "", .explorer = "random"});
  c.source_path = "demo.yaml";
  c.source_text = "name: demo\n";
  return c;
}

std::vector<Trial> Series(const std::vector<double>& costs) {
  std::vector<Trial> trials;
  for (size_t i = 0; i < costs.size(); ++i) {
    trials.push_back(
        {static_cast<int64_t>(10 + i), costs[i] == kFail ? "run_timeout" : "none", costs[i]});
  }
  return trials;
}

// C6 at 2 GFLOP per run, oneDNN 1 s (2 GFLOPS). xgb+sa reaches it; random does not.
ReportInput Input(const ExperimentConfig& config) {
  ReportInput in;
  in.config = &config;
  in.machine =
      "machine: test box\ntarget: llvm -mcpu=native (cpu box), threads: 1\nbuild: commit abc "
      "(clean)\n";
  in.date = "2024-01-01 00:00:00 UTC";
  BaselineTime onednn{1.0, {1.0, 1.0, 1.0}, "brg:avx512_core", "2024-01-01 00:00:00 UTC"};
  in.workloads.push_back({"C6", "conv2d_nchwc.x86", 2e9, onednn});
  in.runs.push_back({"C6", "xgb+sa", 0, Series({kFail, 2.0, 0.5}), true, std::nullopt});
  in.runs.push_back({"C6", "xgb+sa", 1, Series({1.0, 0.8, 0.8}), true, std::nullopt});
  in.runs.push_back({"C6", "random", 0, Series({4.0, 2.0, 2.0}), true, std::nullopt});
  in.runs.push_back({"C6", "random", 1, {}, false, std::nullopt});
  in.plots.push_back({"C6", "C6.png"});
  return in;
}

TEST(ReportTest, TrialsCsv) {
  const ExperimentConfig config = Config(1);
  EXPECT_EQ(TrialsCsv(Input(config)),
            "workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup\n"
            "C6,xgb+sa,0,1,10,run_timeout,,0.000,0.0000\n"
            "C6,xgb+sa,0,2,11,none,1.000,1.000,0.5000\n"
            "C6,xgb+sa,0,3,12,none,4.000,4.000,2.0000\n"
            "C6,xgb+sa,1,1,10,none,2.000,2.000,1.0000\n"
            "C6,xgb+sa,1,2,11,none,2.500,2.500,1.2500\n"
            "C6,xgb+sa,1,3,12,none,2.500,2.500,1.2500\n"
            "C6,random,0,1,10,none,0.500,0.500,0.2500\n"
            "C6,random,0,2,11,none,1.000,1.000,0.5000\n"
            "C6,random,0,3,12,none,1.000,1.000,0.5000\n");
}

TEST(ReportTest, TrialsCsvWithoutBaselineLeavesSpeedupEmpty) {
  const ExperimentConfig config = Config(1);
  ReportInput in = Input(config);
  in.workloads[0].baseline.reset();
  const std::string csv = TrialsCsv(in);
  EXPECT_NE(csv.find("C6,xgb+sa,0,3,12,none,4.000,4.000,\n"), std::string::npos) << csv;
}

TEST(ReportTest, SummaryCsvOneWorkload) {
  const ExperimentConfig config = Config(1);
  EXPECT_EQ(SummaryCsv(Input(config)),
            "strategy,seed,trials_to_baseline,trials_to_90pct_of_final,final_speedup,"
            "trials_to_90pct_of_best\n"
            // The best of any run: 0.5 s (xgb+sa seed 0); 90% of its speed is 0.556 s or less.
            "xgb+sa,0,3,3,2.0000,3\n"
            "xgb+sa,1,1,2,1.2500,\n"
            "random,0,,2,0.5000,\n");
}

TEST(ReportTest, SummaryCsvSeveralWorkloadsNamesThem) {
  const ExperimentConfig config = Config(2);
  ReportInput in = Input(config);
  in.workloads.push_back({"C2", "conv2d_winograd.x86", 1e9, std::nullopt});
  in.runs.push_back({"C2", "random", 0, Series({1.0}), true, std::nullopt});
  const std::string csv = SummaryCsv(in);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "workload,strategy,seed,trials_to_baseline,trials_to_90pct_of_final,final_speedup,"
            "trials_to_90pct_of_best");
  EXPECT_NE(csv.find("\nC6,xgb+sa,0,3,3,2.0000,3\n"), std::string::npos) << csv;
  // No baseline for C2; the best of its runs is its own.
  EXPECT_NE(csv.find("\nC2,random,0,,1,,1\n"), std::string::npos) << csv;
}

TEST(ReportTest, SummaryMarkdown) {
  const ExperimentConfig config = Config(1);
  const std::string md = SummaryMarkdown(Input(config));
  for (const char* piece : {
           "# Experiment `demo`",
           "- machine: test box",
           "- build: commit abc (clean)",
           "- written: 2024-01-01 00:00:00 UTC",
           "- target: llvm -mcpu=native (cpu box), threads: 1",
           "- runs finished: 3 of 4",
           "| C6 | `conv2d_nchwc.x86` | 2 | 1000.0000 | 2.0 | brg:avx512_core | 3 |",
           "![C6](C6.png)",
           "The best over every strategy and seed: 4.0 GFLOPS",
           // xgb+sa: to oneDNN 3 and 1 -> 2; to 90% of the best 3 and never -> never; to 90% of
           // its final 3 and 2 -> 2.5; speedups 2 and 1.25.
           "| xgb+sa | xgb | sa | 2 | 3 | 2 (2/2 reached) | never | 2.5 | 50% | 1.625 | 3.2 |",
           "| random | - | random | 1 | 3 | never (0/1 reached) | never | 2 | 67% | 0.500 | 1.0 |",
           "```yaml\nname: demo\n```\n",
       }) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
}

// 200 trials: the best after 100 and after 200 trials, and where the time went.
TEST(ReportTest, BestAfterCheckpointsAndTuningTimes) {
  ExperimentConfig config = Config(1);
  config.trials = 200;
  ReportInput in = Input(config);
  in.runs.clear();
  std::vector<double> costs(200, 2.0);  // 1 GFLOPS for 100 trials, then 2
  std::fill(costs.begin() + 100, costs.end(), 1.0);
  in.runs.push_back({"C6", "xgb+sa", 0, Series(costs), true, RunTimes{200, 30, 0, 90}});
  in.runs.push_back(
      {"C6", "xgb+sa", 1, Series(std::vector<double>(150, 1.0)), false, std::nullopt});
  EXPECT_EQ(SummaryCsv(in),
            "strategy,seed,trials_to_baseline,trials_to_90pct_of_final,final_speedup,"
            "trials_to_90pct_of_best,best_gflops_at_100,best_gflops_at_200\n"
            "xgb+sa,0,101,101,1.0000,101,1.000,2.000\n"
            "xgb+sa,1,1,1,1.0000,1,2.000,\n");  // 150 trials: nothing after 200
  const std::string md = SummaryMarkdown(in);
  for (const char* piece : {
           "| strategy | 100 | 200 |",
           "| xgb+sa | 1.5 | - |",  // median of 1 and 2; of 2 and none
           "| random | - | - |",
           "| strategy | trials/min | measure | plan | fit |",
           "| xgb+sa | 100.0 | 75% | 25% | 0% |",  // 200 trials in 120 s; seed 1 has no times
           "| random | - | - | - | - |",
       }) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
}

TEST(ReportTest, NoTimesNoTimeTable) {
  const ExperimentConfig config = Config(1);
  EXPECT_EQ(SummaryMarkdown(Input(config)).find("Where the tuning time went"), std::string::npos);
}

TEST(ReportTest, SummaryTableForTheTerminal) {
  const ExperimentConfig config = Config(1);
  const std::string table = SummaryTable(Input(config));
  EXPECT_NE(table.find("C6 (conv2d_nchwc.x86), oneDNN 1000.0000 ms = 2.0 GFLOPS"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("xgb+sa"), std::string::npos);
  EXPECT_NE(table.find("never"), std::string::npos) << table;
  EXPECT_NE(table.find("to 90% best"), std::string::npos) << table;
  EXPECT_NE(table.find("within 90%"), std::string::npos) << table;
  EXPECT_NE(table.find("      50%"), std::string::npos) << table;  // xgb+sa: 1/3 and 2/3
}

TEST(AtomicFileTest, WritesReplacesAndLeavesNoTemporary) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/atomic/a/b";
  const std::string path = dir + "/out.csv";
  ASSERT_TRUE(support::WriteFileAtomically(path, "one\n").ok());
  EXPECT_EQ(testing::ReadFile(path), "one\n");
  ASSERT_TRUE(support::WriteFileAtomically(path, "two\n").ok());
  EXPECT_EQ(testing::ReadFile(path), "two\n");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "out.csv");
  }
  EXPECT_EQ(files, 1);
}

TEST(AtomicFileTest, UnwritableDirectoryNamesThePath) {
  const absl::Status status = support::WriteFileAtomically("/proc/no/such/out.csv", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/proc/no/such"), std::string::npos) << status;
}

}  // namespace
}  // namespace tessel::experiments
