// TuneTasks over several tasks into one log, with a synthetic measurement (a known cost per
// config) so that each trial takes milliseconds: per-task budgets, resume without measuring a
// config twice, transfer between tasks of a template, the progress lines, errors.
#include "search/tuner/tune_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "compiler/target/target_facts.h"
#include "search/records/log.h"

namespace tessel::search {
namespace {

Task Dense(int64_t m, int64_t n, int64_t k) {
  return Task{.template_name = "dense_pack.x86",
              .args = {{"m", m}, {"n", n}, {"k", k}},
              .target = target::Target::Llvm()};
}

Task Pool() {
  return Task{.template_name = "max_pool2d.x86",
              .args = {{"n", 1}, {"c", 32}, {"h", 16}, {"w", 16}, {"kh", 3}, {"kw", 3}},
              .target = target::Target::Llvm()};
}

// Two tasks of one template with another template's in between.
std::vector<Task> ThreeTasks() { return {Dense(16, 64, 64), Pool(), Dense(8, 32, 128)}; }

int SpaceSize(const Task& task) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return static_cast<int>(space->size());
}

std::string TempLog(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + ".jsonl";
  std::filesystem::remove(path);
  return path;
}

// Costs from the config index (some configs fail); every measured (task, index) is remembered
// in order.
struct SyntheticMeasure {
  std::vector<std::pair<std::string, int64_t>> measured = {};

  MeasureFn Fn() {
    return [this](const Task& task, const std::vector<Config>& configs) {
      std::vector<MeasureResult> results;
      for (const Config& c : configs) {
        measured.emplace_back(task.Key(), c.index());
        MeasureResult r;
        if (c.index() % 13 == 5) {
          r.error = ErrorKind::kRuntime;
          r.error_message = "synthetic failure";
        } else {
          r.costs = {1e-4 * (1 + static_cast<double>(c.index() % 17))};
        }
        results.push_back(r);
      }
      return absl::StatusOr<std::vector<MeasureResult>>(results);
    };
  }

  std::vector<int64_t> Of(const Task& task) const {
    std::vector<int64_t> indices;
    for (const auto& [key, index] : measured)
      if (key == task.Key()) indices.push_back(index);
    return indices;
  }
};

TuneTasksOptions Options(const std::string& log, int trials) {
  TuneTasksOptions options;
  options.tuner.cost_model = "xgb";
  options.tuner.explorer = "sa";
  options.tuner.features = "knob";
  options.tuner.plan_size = 8;
  options.tuner.trials = trials;
  options.tuner.log_path = log;
  return options;
}

std::map<std::string, int> RecordsPerTask(const std::string& log) {
  std::map<std::string, int> count;
  absl::StatusOr<std::vector<Record>> records = ReadLog(log);
  EXPECT_TRUE(records.ok()) << records.status();
  if (records.ok())
    for (const Record& r : *records) ++count[r.task.Key()];
  return count;
}

TEST(TuneTasksTest, TunesEveryTaskWithItsOwnBudgetIntoOneLog) {
  const std::string log = TempLog("budget");
  const std::vector<Task> tasks = ThreeTasks();
  SyntheticMeasure m;
  std::ostringstream progress;
  absl::StatusOr<std::vector<TuneResult>> results = TuneTasks(
      tasks, {"dense (node 'fc1')", "", "dense (node 'fc2')"}, Options(log, 6), m.Fn(), &progress);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 3u);
  for (size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ((*results)[i].trials, 6) << i;
    EXPECT_EQ((*results)[i].resumed, 0) << i;
    EXPECT_EQ(m.Of(tasks[i]).size(), 6u) << i;
  }
  // Tasks run one after another, in order.
  EXPECT_EQ(m.measured.front().first, tasks[0].Key());
  EXPECT_EQ(m.measured.back().first, tasks[2].Key());
  const std::map<std::string, int> logged = RecordsPerTask(log);
  EXPECT_EQ(logged.size(), 3u);
  for (const Task& t : tasks) EXPECT_EQ(logged.at(t.Key()), 6) << t.Key();

  const std::string text = progress.str();
  EXPECT_NE(text.find("[task 1/3] dense (node 'fc1'): trials 6/6"), std::string::npos) << text;
  EXPECT_NE(text.find("[task 2/3] max_pool2d.x86: trials"), std::string::npos) << text;
  EXPECT_NE(text.find("[task 3/3] dense (node 'fc2'): best "), std::string::npos) << text;
  EXPECT_NE(text.find("6 trials (0 resumed, "), std::string::npos) << text;
  EXPECT_NE(text.find("stopped: budget"), std::string::npos) << text;
  EXPECT_NE(text.find("tuned 3 tasks in "), std::string::npos) << text;
  EXPECT_NE(text.find(": 18 trials (0 resumed, "), std::string::npos) << text;
}

TEST(TuneTasksTest, RerunResumesEveryTaskWithoutMeasuringAConfigTwice) {
  const std::string log = TempLog("resume");
  const std::vector<Task> tasks = ThreeTasks();
  SyntheticMeasure first, second, third;
  ASSERT_TRUE(TuneTasks(tasks, {}, Options(log, 6), first.Fn(), nullptr).ok());
  TuneTasksOptions more = Options(log, 10);
  more.tuner.seed = 3;  // another seed must not repeat what the log holds either
  absl::StatusOr<std::vector<TuneResult>> resumed =
      TuneTasks(tasks, {}, more, second.Fn(), nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  for (size_t i = 0; i < tasks.size(); ++i) {
    // The pool's space has 9 points: it stops there.
    const int budget = std::min<int>(10, SpaceSize(tasks[i]));
    EXPECT_EQ((*resumed)[i].resumed, 6) << i;
    EXPECT_EQ((*resumed)[i].trials, budget) << i;
    EXPECT_EQ((*resumed)[i].stop_reason, budget == 10 ? "budget" : "space exhausted") << i;
    std::vector<int64_t> before = first.Of(tasks[i]), after = second.Of(tasks[i]);
    EXPECT_EQ(after.size(), static_cast<size_t>(budget - 6)) << i;
    std::set<int64_t> all(before.begin(), before.end());
    for (int64_t index : after)
      EXPECT_TRUE(all.insert(index).second) << "task " << i << ": config " << index << " twice";
  }
  for (const Task& t : tasks)
    EXPECT_EQ(RecordsPerTask(log).at(t.Key()), std::min<int>(10, SpaceSize(t))) << t.Key();
  // Every budget is in the log: a third run measures nothing.
  absl::StatusOr<std::vector<TuneResult>> done = TuneTasks(tasks, {}, more, third.Fn(), nullptr);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(third.measured.empty());
}

// The cost model's first plan is random without a prior and model-guided with one, so with the
// same seed, transfer changes what the second dense task measures first and nothing else.
TEST(TuneTasksTest, LaterTasksOfATemplateTakeTheEarlierOnesAsPrior) {
  const std::vector<Task> tasks = ThreeTasks();
  SyntheticMeasure with, without;
  TuneTasksOptions on = Options(TempLog("transfer_on"), 8);
  TuneTasksOptions off = Options(TempLog("transfer_off"), 8);
  off.transfer = false;
  // The pool task has no other task of its template: offered no prior, it must not fail.
  ASSERT_TRUE(TuneTasks(tasks, {}, on, with.Fn(), nullptr).ok());
  ASSERT_TRUE(TuneTasks(tasks, {}, off, without.Fn(), nullptr).ok());
  EXPECT_EQ(with.Of(tasks[0]), without.Of(tasks[0]));
  EXPECT_EQ(with.Of(tasks[1]), without.Of(tasks[1]));
  EXPECT_NE(with.Of(tasks[2]), without.Of(tasks[2]));
}

TEST(TuneTasksTest, OfferedTransferLogsGoOnlyToTasksOfTheirTemplates) {
  const std::string old_log = TempLog("old");
  SyntheticMeasure m;
  // An older log with another dense shape only.
  ASSERT_TRUE(TuneTasks({Dense(4, 16, 16)}, {}, Options(old_log, 4), m.Fn(), nullptr).ok());
  TuneTasksOptions options = Options(TempLog("offered"), 4);
  options.tuner.transfer_from = {old_log};
  absl::StatusOr<std::vector<TuneResult>> r =
      TuneTasks({Pool(), Dense(16, 64, 64)}, {}, options, m.Fn(), nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
}

TEST(TuneTasksTest, ErrorsNameTheTask) {
  SyntheticMeasure m;
  absl::StatusOr<std::vector<TuneResult>> r =
      TuneTasks(ThreeTasks(), {"a"}, Options(TempLog("labels"), 2), m.Fn(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("1 labels for 3 tasks"), std::string::npos) << r.status();

  Task bad = Dense(16, 64, 64);
  bad.args.erase("k");
  r = TuneTasks({Pool(), bad}, {"pool", "dense (node 'fc')"}, Options(TempLog("bad"), 2), m.Fn(),
                nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[task 2/2] dense (node 'fc'): "), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("k"), std::string::npos) << r.status();

  TuneTasksOptions missing = Options(TempLog("missing"), 2);
  missing.tuner.transfer_from = {TempLog("no_such_log")};
  r = TuneTasks({Pool()}, {}, missing, m.Fn(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no_such_log"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace tessel::search
