// A models experiment end to end on Fig. 4's RNN cell (fusion off and on, 5 repeats): every
// output file is written with its columns; with `tuning:` the cell's task is tuned into its log
// first and a rerun measures nothing again; configs this machine cannot run are errors naming
// the key. No timing ratio is asserted.
#include "experiments/models_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiments/load_config.h"
#include "experiments/registered_names.h"
#include "experiments/test_files.h"
#include "search/records/log.h"

namespace tessel::experiments {
namespace {

constexpr char kTiny[] = R"(kind: models
name: tiny_fusion
threads: 1
repeat: 5
warmup: 1
min_repeat_ms: 1
networks: [rnn_cell]
variants:
  - {name: no_fusion, fuse: false}
  - {name: fusion}
)";

absl::StatusOr<ModelsConfig> Parse(const std::string& text) {
  return ParseModelsConfig(text, "tiny.yaml", RegisteredNames());
}

bool HasMatplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

// kTiny with `extra` appended, run into the test folder `out`.
absl::StatusOr<ModelsOutcome> RunTiny(const std::string& extra, const std::string& out,
                                      std::ostringstream& progress) {
  absl::StatusOr<ModelsConfig> config = Parse(std::string(kTiny) + extra);
  if (!config.ok()) return config.status();
  RunnerOptions options;
  options.out_dir = testing::TestOutDir(out);
  options.progress = &progress;
  return RunModelsExperiment(*config, options);
}

TEST(ModelsRunnerTest, TinyExperimentWritesEveryFile) {
  std::ostringstream progress;
  absl::StatusOr<ModelsOutcome> outcome = RunTiny("", "tiny", progress);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->networks, 1);
  const std::string& out = outcome->out_dir;
  EXPECT_NE(progress.str().find("[network 1/1] rnn_cell: no_fusion "), std::string::npos)
      << progress.str();

  const std::string summary = testing::ReadFile(out + "/summary.csv");
  ASSERT_EQ(testing::CountLines(summary), 3) << summary;
  EXPECT_EQ(summary.substr(0, summary.find('\n')),
            "network,variant,median_ms,min_ms,max_ms,speedup");
  EXPECT_NE(summary.find("\nrnn_cell,no_fusion,"), std::string::npos) << summary;
  EXPECT_NE(summary.find(",1.0000\n"), std::string::npos) << summary;  // the first variant's
  EXPECT_NE(summary.find("\nrnn_cell,fusion,"), std::string::npos) << summary;

  const std::string times = testing::ReadFile(out + "/times.csv");
  EXPECT_EQ(times.substr(0, times.find('\n')), "network,variant,repeat,ms,runs_per_repeat");
  EXPECT_EQ(testing::CountLines(times), 1 + 2 * 5) << times;
  EXPECT_NE(times.find("\nrnn_cell,fusion,5,"), std::string::npos) << times;

  const std::string md = testing::ReadFile(out + "/summary.md");
  for (const char* piece :
       {"# Experiment `tiny_fusion`", "- machine: ", "- build: commit ", "- tuning: none",
        "| rnn_cell | no_fusion | Tessel with graph optimizations, fusion off | 4 (0 fused) |",
        "| rnn_cell | fusion | Tessel with graph optimizations and fusion | 2 (1 fused) |",
        "outputs matched the graph evaluated node by node by libtorch (atol",
        "```yaml\nkind: models\n", "- networks finished: 1 of 1"}) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
  if (HasMatplotlib()) {
    EXPECT_TRUE(outcome->warnings.empty()) << outcome->warnings.front();
    EXPECT_TRUE(std::filesystem::exists(out + "/tiny_fusion.png"));
    EXPECT_NE(md.find("![tiny_fusion](tiny_fusion.png)"), std::string::npos) << md;
  }
  EXPECT_NE(outcome->table.find("rnn_cell"), std::string::npos) << outcome->table;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

// Fig. 19's path: the models compiled for a Mali-class GPU run on this machine's OpenCL device
// (PoCL), checked against libtorch, and the report says whose times these are.
TEST(ModelsRunnerTest, OpenClTargetRunsOnTheDeviceAndSaysWhich) {
  std::ostringstream progress;
  absl::StatusOr<ModelsOutcome> outcome =
      RunTiny("target: opencl -device=mali\n", "opencl", progress);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  const std::string md = testing::ReadFile(outcome->out_dir + "/summary.md");
  for (const char* piece :
       {"- target: opencl -device=mali, host threads: 1",
        "- device: this machine's OpenCL device; PoCL runs kernels on the CPU, so these times are "
        "a CPU's, not a GPU's",
        "| rnn_cell | fusion | Tessel with graph optimizations and fusion | 2 (1 fused) |",
        "outputs matched the graph evaluated node by node by libtorch (atol"}) {
    EXPECT_NE(md.find(piece), std::string::npos) << "missing: " << piece << "\n" << md;
  }
}

TEST(ModelsRunnerTest, TunesIntoTheLogThenResumes) {
  absl::StatusOr<ModelsConfig> config = Parse(std::string(kTiny) +
                                              "tuning:\n  trials: 2\n  explorer: random\n"
                                              "  measure: {repeat: 1, min_repeat_ms: 1}\n");
  ASSERT_TRUE(config.ok()) << config.status();
  config->variants.pop_back();  // one variant is enough here
  RunnerOptions options;
  options.out_dir = testing::TestOutDir("tuned");
  options.plot = false;
  std::ostringstream progress;
  options.progress = &progress;
  absl::StatusOr<ModelsOutcome> outcome = RunModelsExperiment(*config, options);
  ASSERT_TRUE(outcome.ok()) << outcome.status() << progress.str();
  // Both dense nodes of the cell are one task (the same arguments).
  const std::string log = outcome->out_dir + "/logs/rnn_cell.jsonl";
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 2u);
  const std::string md = testing::ReadFile(outcome->out_dir + "/summary.md");
  EXPECT_NE(md.find("  - rnn_cell: 1 tasks, 2 trials in `logs/rnn_cell.jsonl`"), std::string::npos)
      << md;
  // The cell's two dense nodes share one kernel, tuned; add and tanh keep their fallbacks.
  EXPECT_NE(md.find("| rnn_cell | no_fusion | Tessel with graph optimizations, fusion off | 4 "
                    "(0 fused), 1/3 tuned |"),
            std::string::npos)
      << md;

  absl::StatusOr<ModelsOutcome> rerun = RunModelsExperiment(*config, options);
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  records = search::ReadLog(log);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 2u);  // nothing measured again
}

struct Unrunnable {
  const char* what;
  std::string extra;     // appended to kTiny
  std::string expected;  // in the message
};

void PrintTo(const Unrunnable& u, std::ostream* os) { *os << u.what; }

class UnrunnableModelsConfigTest : public ::testing::TestWithParam<Unrunnable> {};

TEST_P(UnrunnableModelsConfigTest, IsAnErrorBeforeMeasuring) {
  absl::StatusOr<ModelsConfig> config = Parse(std::string(kTiny) + GetParam().extra);
  ASSERT_TRUE(config.ok()) << config.status();
  RunnerOptions options;
  options.out_dir = testing::TestOutDir("unrunnable");
  absl::StatusOr<ModelsOutcome> outcome = RunModelsExperiment(*config, options);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(outcome.status())) << outcome.status();
  EXPECT_NE(outcome.status().message().find(GetParam().expected), std::string::npos)
      << outcome.status();
}

INSTANTIATE_TEST_SUITE_P(
    Configs, UnrunnableModelsConfigTest,
    ::testing::Values(
        Unrunnable{"target of another machine", "target: llvm -mtriple=aarch64-linux-gnu\n",
                   "tiny.yaml: target: "},
        Unrunnable{"tuning for a GPU target",
                   "target: opencl\ntuning: {trials: 2, explorer: random}\n",
                   "tiny.yaml: tuning: the tuner measures on this machine's CPU only, not on "
                   "target 'opencl'"},
        Unrunnable{"guided explorer without a model", "tuning: {trials: 2, explorer: sa}\n",
                   "tiny.yaml:11: tuning.cost_model: missing: explorer 'sa' is guided"},
        Unrunnable{"black-box explorer with a model",
                   "tuning: {trials: 2, explorer: ga, cost_model: xgb}\n",
                   "tiny.yaml:11: tuning.cost_model: explorer 'ga' is black-box"},
        Unrunnable{"unknown explorer parameter",
                   "tuning: {trials: 2, explorer: ga, explorer_params: {colour: 3}}\n",
                   "tiny.yaml:11: tuning.explorer_params: "}));

}  // namespace
}  // namespace tessel::experiments
