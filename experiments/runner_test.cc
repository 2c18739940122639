// An experiment end to end on a tiny conv2d (two black-box strategies, 8 trials, two seeds): every
// output file is written and consistent with the logs, runs go seed by seed, a rerun resumes
// without measuring again, and configs this machine cannot run are errors naming the key.
#include "experiments/runner.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "experiments/config.h"
#include "experiments/load_config.h"
#include "experiments/registered_names.h"
#include "experiments/test_files.h"
#include "search/records/log.h"

namespace tessel::experiments {
namespace {

constexpr char kTiny[] = R"(name: tiny
target: llvm
threads: 1
trials: 8
seeds: [3, 4]
workloads:
  - name: tiny_conv
    template: conv2d_nchwc.x86
    args: {n: 1, ic: 8, h: 8, w: 8, oc: 16, kh: 3, kw: 3, stride: [1, 1], pad: [1, 1, 1, 1]}
strategies:
  - {name: random, explorer: random}
  - {name: ga, explorer: ga}
baselines: [onednn]
measure: {repeat: 2, min_repeat_ms: 1, timeout_seconds: 20, build_workers: 2}
)";

absl::StatusOr<ExperimentConfig> Parse(const std::string& text) {
  return ParseExperimentConfig(text, "tiny.yaml", RegisteredNames());
}

TEST(RunnerTest, TinyExperimentEndToEndThenResumes) {
  absl::StatusOr<ExperimentConfig> config = Parse(kTiny);
  ASSERT_TRUE(config.ok()) << config.status();
  RunnerOptions options;
  options.out_dir = testing::TestOutDir("tiny");
  std::ostringstream progress;
  options.progress = &progress;
  absl::StatusOr<ExperimentOutcome> outcome = RunExperiment(*config, options);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->runs, 4);
  EXPECT_EQ(outcome->tuned, 4);
  EXPECT_TRUE(outcome->warnings.empty()) << outcome->warnings.front();
  const std::string& out = outcome->out_dir;

  // The live line, one per batch group off a terminal. Tasks are numbered workload, strategy,
  // seed; they run seed by seed, so every strategy of seed 3 comes before seed 4.
  const std::string text = progress.str();
  EXPECT_NE(text.find("[task 1/4] tiny_conv random seed 3: trials 8/8, best "), std::string::npos)
      << text;
  EXPECT_NE(text.find("x oneDNN), ETA "), std::string::npos) << text;
  EXPECT_LT(text.find("[task 3/4] tiny_conv ga seed 3"),
            text.find("[task 2/4] tiny_conv random seed 4"))
      << text;
  EXPECT_NE(text.find("[task 4/4] tiny_conv ga seed 4"), std::string::npos) << text;
  EXPECT_NE(text.find("oneDNN tiny_conv: "), std::string::npos);

  // Logs: 8 records per run, one task; beside each, where its time went.
  for (const char* strategy : {"random", "ga"}) {
    const std::string log = out + "/logs/tiny_conv/" + strategy + "_seed3.jsonl";
    absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
    ASSERT_TRUE(records.ok()) << records.status();
    EXPECT_EQ(records->size(), 8u) << strategy;
    const std::string times = testing::ReadFile(log + ".times.json");
    EXPECT_NE(times.find("\"measured\":8,"), std::string::npos) << times;
    EXPECT_NE(times.find("\"measure_seconds\":"), std::string::npos) << times;
  }

  const std::string trials = testing::ReadFile(out + "/trials.csv");
  EXPECT_EQ(trials.substr(0, trials.find('\n')),
            "workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup");
  EXPECT_EQ(testing::CountLines(trials), 1 + 32) << trials;
  EXPECT_NE(trials.find("\ntiny_conv,random,3,1,"), std::string::npos);
  EXPECT_NE(trials.find("\ntiny_conv,ga,3,8,"), std::string::npos);

  const std::string summary = testing::ReadFile(out + "/summary.csv");
  ASSERT_EQ(testing::CountLines(summary), 5) << summary;
  EXPECT_EQ(summary.substr(0, summary.find('\n')),
            "strategy,seed,trials_to_baseline,trials_to_90pct_of_final,final_speedup,"
            "trials_to_90pct_of_best");
  EXPECT_NE(summary.find("\nrandom,3,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\nga,3,"), std::string::npos) << summary;

  const std::string md = testing::ReadFile(out + "/summary.md");
  for (const char* piece : {"# Experiment `tiny`", "- machine: ", "- build: commit ",
                            "| tiny_conv | `conv2d_nchwc.x86` |", "![tiny_conv](tiny_conv.png)",
                            "| random | - | random | 2 | 8 |", "| ga | - | ga | 2 | 8 |",
                            "```yaml\nname: tiny\n", "- runs finished: 4 of 4\n",
                            "Where the tuning time went", "| strategy | trials/min | measure |"}) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
  EXPECT_TRUE(std::filesystem::exists(out + "/tiny_conv.png"));
  EXPECT_TRUE(std::filesystem::exists(out + "/baseline.json"));
  EXPECT_NE(outcome->table.find("random"), std::string::npos) << outcome->table;

  // Rerun: nothing is tuned or measured again, the baseline is reused, the results are the same.
  const std::string baseline = testing::ReadFile(out + "/baseline.json");
  std::ostringstream again;
  options.progress = &again;
  absl::StatusOr<ExperimentOutcome> rerun = RunExperiment(*config, options);
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  EXPECT_EQ(rerun->tuned, 0);
  EXPECT_NE(again.str().find("[task 1/4] tiny_conv random seed 3: finished before (8 trials"),
            std::string::npos)
      << again.str();
  EXPECT_NE(again.str().find("from baseline.json"), std::string::npos) << again.str();
  EXPECT_EQ(testing::ReadFile(out + "/trials.csv"), trials);
  EXPECT_EQ(testing::ReadFile(out + "/summary.csv"), summary);
  EXPECT_EQ(testing::ReadFile(out + "/baseline.json"), baseline);
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

// A source experiment's logs train the model of a strategy with transfer_from before its first
// trial: its first configs are the model's choice, not the random first batch of the same seed.
TEST(RunnerTest, TransferFromAnotherExperimentsLogs) {
  const std::string args =
      "{n: 1, ic: 8, h: 8, w: 8, kh: 3, kw: 3, stride: [1, 1], pad: [1, 1, 1, 1]";
  absl::StatusOr<ExperimentConfig> source = Parse(absl::StrCat(
      "name: source\ntrials: 8\nworkloads:\n  - {name: a, template: conv2d_nchwc.x86, args: ", args,
      ", oc: 16}}\nstrategies:\n  - {name: random, explorer: random}\n",
      "measure: {repeat: 1, min_repeat_ms: 1, build_workers: 2}\n"));
  ASSERT_TRUE(source.ok()) << source.status();
  RunnerOptions options;
  options.out_dir = testing::TestOutDir("source");
  ASSERT_TRUE(RunExperiment(*source, options).ok());
  const std::string logs = options.out_dir + "/logs";

  absl::StatusOr<ExperimentConfig> target = Parse(absl::StrCat(
      "name: target\ntrials: 4\nseeds: [5]\nworkloads:\n  - {name: b, template: conv2d_nchwc.x86, "
      "args: ",
      args, ", oc: 32}}\nstrategies:\n",
      "  - {name: scratch, cost_model: xgb, explorer: sa, plan_size: 4}\n",
      "  - {name: transfer, cost_model: xgb, explorer: sa, plan_size: 4, transfer_from: ", logs,
      "}\nmeasure: {repeat: 1, min_repeat_ms: 1, build_workers: 2}\n"));
  ASSERT_TRUE(target.ok()) << target.status();
  options.out_dir = testing::TestOutDir("target");
  absl::StatusOr<ExperimentOutcome> outcome = RunExperiment(*target, options);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->tuned, 2);
  absl::StatusOr<std::vector<search::Record>> scratch =
      search::ReadLog(options.out_dir + "/logs/b/scratch_seed5.jsonl");
  absl::StatusOr<std::vector<search::Record>> transfer =
      search::ReadLog(options.out_dir + "/logs/b/transfer_seed5.jsonl");
  ASSERT_TRUE(scratch.ok() && transfer.ok());
  ASSERT_EQ(scratch->size(), 4u);
  ASSERT_EQ(transfer->size(), 4u);
  std::set<int64_t> first_scratch, first_transfer;
  for (const search::Record& r : *scratch) first_scratch.insert(r.config_index);
  for (const search::Record& r : *transfer) first_transfer.insert(r.config_index);
  EXPECT_NE(first_scratch, first_transfer);

  // Logs of another template cannot train a model for this one: refused before measuring.
  absl::StatusOr<ExperimentConfig> other = Parse(absl::StrCat(
      "name: other\ntrials: 4\nworkloads:\n  - {name: b, template: conv2d_multilevel.x86, args: ",
      args, ", oc: 32}}\nstrategies:\n",
      "  - {name: transfer, cost_model: xgb, explorer: sa, transfer_from: [", logs, "]}\n"));
  ASSERT_TRUE(other.ok()) << other.status();
  options.out_dir = testing::TestOutDir("other");
  outcome = RunExperiment(*other, options);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.status().message().find(
                "strategies[0].transfer_from: the logs (1 files) hold no record of another task "
                "of conv2d_multilevel.x86, which workload b is tuned with"),
            std::string::npos)
      << outcome.status();
  EXPECT_FALSE(std::filesystem::exists(options.out_dir + "/logs"));
}

// Every shipped config parses with the names this build registers (templates, models, explorers).
// On VDLA the measurement is the simulator's cycle count: two runs of the same seed measure the
// same configs to the same costs.
TEST(RunnerTest, VdlaRunsAreNoiseFree) {
  constexpr char kVdla[] = R"(name: vdla
target: vdla
trials: 6
seeds: [0]
workloads: [C11]
strategies:
  - {name: xgb+sa, cost_model: xgb, explorer: sa, plan_size: 4}
  - {name: random, explorer: random}
measure: {build_workers: 2}
)";
  absl::StatusOr<ExperimentConfig> config = Parse(kVdla);
  ASSERT_TRUE(config.ok()) << config.status();
  std::vector<std::vector<search::Record>> runs;
  for (const char* dir : {"vdla_a", "vdla_b"}) {
    RunnerOptions options;
    options.out_dir = testing::TestOutDir(dir);
    absl::StatusOr<ExperimentOutcome> outcome = RunExperiment(*config, options);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
    EXPECT_EQ(outcome->tuned, 2);
    absl::StatusOr<std::vector<search::Record>> records =
        search::ReadLog(outcome->out_dir + "/logs/C11/xgb+sa_seed0.jsonl");
    ASSERT_TRUE(records.ok()) << records.status();
    ASSERT_EQ(records->size(), 6u);
    EXPECT_EQ(records->front().task.template_name, "conv2d_int8.vdla");
    runs.push_back(*records);
    std::ifstream summary(outcome->out_dir + "/summary.md");
    std::stringstream text;
    text << summary.rdbuf();
    EXPECT_NE(text.str().find("- device: VDLA's RTL simulated by Verilator"), std::string::npos)
        << text.str();
  }
  for (size_t i = 0; i < runs[0].size(); ++i) {
    EXPECT_EQ(runs[0][i].config_index, runs[1][i].config_index) << i;
    EXPECT_EQ(runs[0][i].result.costs, runs[1][i].result.costs) << i;
  }
}

TEST(RunnerTest, EveryShippedConfigParses) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  int configs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(srcdir) + "/tessel/experiments/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    ++configs;
    absl::StatusOr<AnyConfig> config = LoadAnyConfig(entry.path().string(), RegisteredNames());
    EXPECT_TRUE(config.ok()) << config.status();
  }
  EXPECT_GE(configs, 10);
}

struct Unrunnable {
  const char* what;
  std::string text;
  std::string expected;  // in the message
};

void PrintTo(const Unrunnable& u, std::ostream* os) { *os << u.what; }

class UnrunnableConfigTest : public ::testing::TestWithParam<Unrunnable> {};

TEST_P(UnrunnableConfigTest, IsAnErrorBeforeMeasuring) {
  absl::StatusOr<ExperimentConfig> config = Parse(GetParam().text);
  ASSERT_TRUE(config.ok()) << config.status();
  RunnerOptions options;
  options.out_dir = testing::TestOutDir("unrunnable");
  absl::StatusOr<ExperimentOutcome> outcome = RunExperiment(*config, options);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(outcome.status())) << outcome.status();
  EXPECT_NE(outcome.status().message().find(GetParam().expected), std::string::npos)
      << outcome.status();
}

INSTANTIATE_TEST_SUITE_P(
    Configs, UnrunnableConfigTest,
    ::testing::Values(
        Unrunnable{"guided explorer without a model",
                   "name: u\ntrials: 2\nworkloads: [C6]\ntemplate: conv2d_nchwc.x86\n"
                   "strategies:\n  - {name: s, explorer: sa}\n",
                   "tiny.yaml:6: strategies[0].cost_model: missing: explorer 'sa' is guided"},
        Unrunnable{"black-box explorer with a model",
                   "name: u\ntrials: 2\nworkloads: [C6]\ntemplate: conv2d_nchwc.x86\n"
                   "strategies:\n  - {name: s, explorer: ga, cost_model: xgb}\n",
                   "tiny.yaml:6: strategies[0].cost_model: explorer 'ga' is black-box"},
        Unrunnable{"unknown explorer parameter",
                   "name: u\ntrials: 2\nworkloads: [C6]\ntemplate: conv2d_nchwc.x86\n"
                   "strategies:\n  - {name: s, explorer: ga, explorer_params: {colour: 3}}\n",
                   "tiny.yaml:6: strategies[0].explorer_params: "},
        Unrunnable{"template rejecting the layer",
                   "name: u\ntrials: 2\nworkloads: [C1]\ntemplate: conv2d_winograd.x86\n"
                   "strategies:\n  - {name: s, explorer: ga}\n",
                   "tiny.yaml:3: workloads[0]: "},
        Unrunnable{"bad operator arguments",
                   "name: u\ntrials: 2\nworkloads:\n  - {name: w, template: conv2d_nchwc.x86, "
                   "args: {n: 1, ic: 0, h: 8, w: 8, oc: 8, kh: 3, kw: 3}}\n"
                   "strategies:\n  - {name: s, explorer: ga}\n",
                   "tiny.yaml:4: workloads[0]: "},
        Unrunnable{"oneDNN baseline of a dense",
                   "name: u\ntrials: 2\nworkloads:\n  - {name: d, template: dense_pack.x86, "
                   "args: {m: 4, n: 16, k: 16}}\nbaselines: [onednn]\n"
                   "strategies:\n  - {name: s, explorer: ga}\n",
                   "tiny.yaml:4: workloads[0]: baseline onednn times conv2d only"},
        Unrunnable{"oneDNN baseline on VDLA",
                   "name: u\ntarget: vdla\ntrials: 2\nworkloads: [C6]\nbaselines: [onednn]\n"
                   "strategies:\n  - {name: s, explorer: ga}\n",
                   "tiny.yaml:4: workloads[0]: baseline onednn times conv2d only; 'C6' is tuned "
                   "with conv2d_int8.vdla (operator conv2d_int8)"},
        Unrunnable{"transfer from a missing log",
                   "name: u\ntrials: 2\nworkloads: [C6]\ntemplate: conv2d_nchwc.x86\n"
                   "strategies:\n  - {name: s, explorer: sa, cost_model: xgb, transfer_from: "
                   "/no/such/logs}\n",
                   "tiny.yaml:6: strategies[0].transfer_from: '/no/such/logs' is neither a tuning "
                   "log nor a directory"},
        Unrunnable{"target of another machine",
                   "name: u\ntarget: llvm -mtriple=aarch64-linux-gnu\ntrials: 2\nworkloads: [C6]\n"
                   "strategies:\n  - {name: s, explorer: ga}\n",
                   "tiny.yaml: target: "}));

}  // namespace
}  // namespace tessel::experiments
