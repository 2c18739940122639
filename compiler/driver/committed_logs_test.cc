// The tuning logs committed under results/ keep applying: each Fig. 14 log, compiled for the
// target it was tuned for (so this runs on any x86-64 machine: compiling does not run the code),
// finds a tuned config for every task of its network.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "compiler/driver/compile_model.h"
#include "compiler/driver/model_tasks.h"
#include "search/records/apply_history_best.h"
#include "search/records/log.h"
#include "workloads/networks/network.h"

namespace tessel::driver {
namespace {

namespace fs = std::filesystem;

// Every results/fig14_end2end/<cpu>/logs/<network>.jsonl, sorted.
std::vector<fs::path> CommittedLogs() {
  std::vector<fs::path> logs;
  for (const fs::directory_entry& cpu : fs::directory_iterator("results/fig14_end2end")) {
    const fs::path dir = cpu.path() / "logs";
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& log : fs::directory_iterator(dir)) logs.push_back(log.path());
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

// The one target of a log's records.
target::Target LogTarget(const std::vector<search::Record>& records) {
  std::set<std::string> targets;
  for (const search::Record& r : records) targets.insert(r.task.target.ToString());
  EXPECT_EQ(targets.size(), 1u) << ::testing::PrintToString(targets);
  return records.front().task.target;
}

TEST(CommittedLogsTest, EveryTaskOfEveryNetworkIsTuned) {
  const std::vector<fs::path> logs = CommittedLogs();
  ASSERT_GE(logs.size(), 5u);  // at least one CPU's five networks
  for (const fs::path& path : logs) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(path.string());
    ASSERT_TRUE(records.ok()) << records.status();
    ASSERT_FALSE(records->empty());
    const target::Target target = LogTarget(*records);
    const search::ApplyHistoryBest history(*records);
    absl::StatusOr<graph::Graph> g =
        workloads::networks::BuildNetwork(path.stem().string(), {.batch = 1, .seed = 0});
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<ModelTask>> tasks = ExtractTasks(*g, target);
    ASSERT_TRUE(tasks.ok()) << tasks.status();
    ASSERT_FALSE(tasks->empty());
    for (const ModelTask& t : *tasks) {
      EXPECT_TRUE(history.Best(t.task.Key()).has_value()) << "untuned: " << t.task.Key();
    }
  }
}

TEST(CommittedLogsTest, ResnetCompilesWithEveryKernelTuned) {
  const std::string path = "results/fig14_end2end/znver4/logs/resnet18.jsonl";
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(path);
  ASSERT_TRUE(records.ok()) << records.status();
  const search::ApplyHistoryBest history(*records);
  absl::StatusOr<graph::Graph> g = workloads::networks::BuildNetwork("resnet18", {});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<CompiledModel> m = Compile(*g, LogTarget(*records), &history);
  ASSERT_TRUE(m.ok()) << m.status();
  for (const std::string& w : m->warnings) {
    EXPECT_THAT(w, ::testing::Not(::testing::HasSubstr("no tuned config")));
  }
  // The tunable kernels (convolutions, dense, pools) all took a config from the log.
  std::set<std::string> tunable;
  absl::StatusOr<std::vector<ModelTask>> tasks = ExtractTasks(*g, LogTarget(*records));
  ASSERT_TRUE(tasks.ok()) << tasks.status();
  for (const ModelTask& t : *tasks) tunable.insert(t.task.Key());
  int tuned = 0;
  for (const CompiledKernel& k : m->kernels) {
    if (tunable.count(k.task.Key()) == 0) continue;
    EXPECT_TRUE(k.tuned) << k.task.Key();
    ++tuned;
  }
  EXPECT_GE(tuned, static_cast<int>(tunable.size()));
}

}  // namespace
}  // namespace tessel::driver
