#include "search/tuner/tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "search/records/log.h"

// The loop itself, with a synthetic measurement (a known cost per config, some configs failing),
// so that these tests take milliseconds per trial. The real measurement is tested in
// search/measure; the whole chain with a killed tuner in tune_resume_test.
namespace tessel::search {
namespace {

Task DenseTask() {
  return Task{.template_name = "dense_pack.x86",
              .args = {{"m", 16}, {"n", 64}, {"k", 64}},
              .target = target::Target::Llvm()};
}

ConfigSpace SpaceOf(const Task& task) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return *space;
}

// Cost grows with the L1 distance of the value indices from `optimum`; configs whose index is
// 3 mod 11 fail. Every measured index is remembered.
struct SyntheticMeasure {
  std::vector<int64_t> optimum = {};
  std::vector<int64_t> measured = {};

  MeasureFn Fn() {
    return [this](const Task&, const std::vector<Config>& configs) {
      std::vector<MeasureResult> results;
      for (const Config& c : configs) {
        measured.push_back(c.index());
        MeasureResult r;
        if (c.index() % 11 == 3) {
          r.error = ErrorKind::kRuntime;
          r.error_message = "killed by signal SIGSEGV (synthetic)";
        } else {
          double distance = 0;
          for (size_t i = 0; i < optimum.size(); ++i)
            distance += std::abs(c.value_indices()[i] - optimum[i]);
          r.costs = {1e-3 * (1 + distance)};
        }
        results.push_back(r);
      }
      return absl::StatusOr<std::vector<MeasureResult>>(results);
    };
  }
};

std::string TempLog(const std::string& name) {
  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/" + name + ".jsonl";
  std::filesystem::remove(path);
  return path;
}

TunerOptions BlackBox(const std::string& explorer, int trials) {
  return TunerOptions{.cost_model = "", .explorer = explorer, .trials = trials};
}

TEST(TunerTest, RandomMeasuresDistinctConfigsAndRepeatsWithTheSameSeed) {
  Task task = DenseTask();
  SyntheticMeasure a{.optimum = {}}, b{.optimum = {}};
  absl::StatusOr<TuneResult> ra = Tune(task, BlackBox("random", 30), a.Fn());
  absl::StatusOr<TuneResult> rb = Tune(task, BlackBox("random", 30), b.Fn());
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(rb.ok()) << rb.status();
  EXPECT_EQ(ra->trials, 30);
  EXPECT_EQ(a.measured, b.measured);
  EXPECT_EQ(std::set<int64_t>(a.measured.begin(), a.measured.end()).size(), a.measured.size());
  TunerOptions other = BlackBox("random", 30);
  other.seed = 7;
  SyntheticMeasure c;
  ASSERT_TRUE(Tune(task, other, c.Fn()).ok());
  EXPECT_NE(a.measured, c.measured);
}

TEST(TunerTest, FailedTrialsAreCountedAndTuningCarriesOn) {
  Task task = DenseTask();
  SyntheticMeasure m;
  absl::StatusOr<TuneResult> r = Tune(task, BlackBox("grid", 40), m.Fn());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->trials, 40);
  int failing = 0;
  for (int64_t i : m.measured) failing += i % 11 == 3;
  EXPECT_GT(failing, 0);
  EXPECT_EQ(r->errors, failing);
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->result.error, ErrorKind::kNone);
}

TEST(TunerTest, ResumeContinuesTheLogWithoutMeasuringAConfigTwice) {
  Task task = DenseTask();
  std::string log = TempLog("resume");
  SyntheticMeasure first, second;
  TunerOptions options = BlackBox("random", 12);
  options.log_path = log;
  ASSERT_TRUE(Tune(task, options, first.Fn()).ok());
  options.trials = 30;
  options.seed = 1;  // even another seed must not repeat what the log holds
  absl::StatusOr<TuneResult> r = Tune(task, options, second.Fn());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->resumed, 12);
  EXPECT_EQ(r->trials, 30);
  EXPECT_EQ(second.measured.size(), 18u);
  std::set<int64_t> all(first.measured.begin(), first.measured.end());
  for (int64_t i : second.measured) EXPECT_TRUE(all.insert(i).second) << "config " << i << " twice";
  absl::StatusOr<std::vector<Record>> records = ReadLog(log);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 30u);
  // A finished budget measures nothing more.
  SyntheticMeasure third;
  ASSERT_TRUE(Tune(task, options, third.Fn()).ok());
  EXPECT_TRUE(third.measured.empty());
}

TEST(TunerTest, ModelGuidedSearchFindsTheOptimumFasterThanRandom) {
  Task task = DenseTask();
  ConfigSpace space = SpaceOf(task);
  // An optimum in the middle of the space, away from grid's start.
  std::mt19937_64 rng(99);
  Config optimum = space.SampleUnique(1, rng)[0];
  int xgb_found = 0, random_found = 0;
  for (uint64_t seed : {0, 1, 2}) {
    SyntheticMeasure guided{.optimum = optimum.value_indices()};
    TunerOptions options{.cost_model = "xgb",
                         .explorer = "sa",
                         .features = "knob",
                         .trials = 96,
                         .plan_size = 32,
                         .seed = seed};
    absl::StatusOr<TuneResult> r = Tune(task, options, guided.Fn());
    ASSERT_TRUE(r.ok()) << r.status();
    xgb_found += r->best->config_index == optimum.index();
    SyntheticMeasure blind{.optimum = optimum.value_indices()};
    TunerOptions random = BlackBox("random", 96);
    random.seed = seed;
    absl::StatusOr<TuneResult> b = Tune(task, random, blind.Fn());
    ASSERT_TRUE(b.ok()) << b.status();
    random_found += b->best->config_index == optimum.index();
  }
  EXPECT_EQ(xgb_found, 3) << "space of " << space.size() << " points";
  EXPECT_LT(random_found, 3);
}

MeasureResult OneMillisecond() {
  MeasureResult r;
  r.costs = {1e-3};
  return r;
}

// Where the time went: every trial this run measured, the measurer's wall time and the builders'
// reported time; a resumed run measures nothing and says so.
TEST(TunerTest, TimesAccountForEveryMeasuredTrial) {
  const Task task = DenseTask();
  std::mt19937_64 rng(3);
  SyntheticMeasure synthetic{.optimum = SpaceOf(task).SampleUnique(1, rng)[0].value_indices()};
  MeasureFn slow = [&](const Task& t, const std::vector<Config>& configs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    absl::StatusOr<std::vector<MeasureResult>> results = synthetic.Fn()(t, configs);
    for (MeasureResult& r : *results) r.build_seconds = 0.5;
    return results;
  };
  const std::string log = TempLog("times");
  TunerOptions options{.cost_model = "xgb",
                       .explorer = "sa",
                       .features = "knob",
                       .trials = 48,
                       .plan_size = 16,
                       .log_path = log};
  absl::StatusOr<TuneResult> r = Tune(task, options, slow);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->times.measured, 48);
  EXPECT_DOUBLE_EQ(r->times.build, 0.5 * 48);
  EXPECT_GE(r->times.measure, 0.010 * 48 / options.batch_size);
  EXPECT_GT(r->times.plan, 0);
  EXPECT_GT(r->times.fit, 0);
  const std::string line = r->times.ToString();
  EXPECT_NE(line.find("trials/min: measure "), std::string::npos) << line;
  EXPECT_NE(line.find("(build 24 s of builder time), plan "), std::string::npos) << line;

  r = Tune(task, options, slow);  // all 48 resumed from the log
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->times.measured, 0);
  EXPECT_EQ(r->times.ToString(), "no trial measured");
}

TEST(TunerTest, EarlyStoppingEndsAfterTrialsWithoutImprovement) {
  Task task = DenseTask();
  MeasureFn flat = [](const Task&, const std::vector<Config>& configs) {
    return absl::StatusOr<std::vector<MeasureResult>>(
        std::vector<MeasureResult>(configs.size(), OneMillisecond()));
  };
  TunerOptions options = BlackBox("random", 100);
  options.early_stopping = 10;
  absl::StatusOr<TuneResult> r = Tune(task, options, flat);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stop_reason, "early stopping");
  EXPECT_LE(r->trials, 12);
}

TEST(TunerTest, GridStopsWhenTheSpaceIsUsedUp) {
  Task task{
      .template_name = "relu.x86", .args = {{"shape", {4, 8}}}, .target = target::Target::Llvm()};
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  ASSERT_TRUE(facts.ok());
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  ASSERT_TRUE(space.ok()) << space.status();
  SyntheticMeasure m;
  absl::StatusOr<TuneResult> r = Tune(task, BlackBox("grid", 100000), m.Fn());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stop_reason, "space exhausted");
  EXPECT_LE(r->trials, space->size());
}

TEST(TunerTest, BadOptionsNameTheProblem) {
  Task task = DenseTask();
  SyntheticMeasure m;
  auto message = [&](const TunerOptions& o) {
    return std::string(Tune(task, o, m.Fn()).status().message());
  };
  EXPECT_NE(message(BlackBox("simulated", 5)).find("simulated"), std::string::npos);
  EXPECT_NE(message(BlackBox("sa", 5)).find("needs a cost model"), std::string::npos);
  TunerOptions ga_with_model{.cost_model = "xgb", .explorer = "ga", .trials = 5};
  EXPECT_NE(message(ga_with_model).find("black-box"), std::string::npos);
  TunerOptions no_model{.cost_model = "gbm", .explorer = "sa", .trials = 5};
  EXPECT_NE(message(no_model).find("gbm"), std::string::npos);
  TunerOptions bad_features{
      .cost_model = "xgb", .explorer = "sa", .features = "pixels", .trials = 5};
  EXPECT_NE(message(bad_features).find("pixels"), std::string::npos);
  TunerOptions negative = BlackBox("random", -1);
  EXPECT_NE(message(negative).find("trials"), std::string::npos);
  TunerOptions no_dir = BlackBox("random", 5);
  no_dir.log_path = "/nonexistent-dir/log.jsonl";
  EXPECT_NE(message(no_dir).find("/nonexistent-dir/log.jsonl"), std::string::npos);
  TunerOptions transfer{.cost_model = "xgb",
                        .explorer = "sa",
                        .trials = 5,
                        .transfer_from = {"/nonexistent-dir/old.jsonl"}};
  EXPECT_NE(message(transfer).find("/nonexistent-dir/old.jsonl"), std::string::npos);
  EXPECT_TRUE(m.measured.empty());
}

// Batches proposed one call at a time, the log carrying the state between calls (tuning measured
// elsewhere): every batch new, the last one cut to the budget, then nothing with the reason.
TEST(TunerTest, ProposeNextContinuesFromTheLog) {
  const Task task = DenseTask();
  const std::string log = TempLog("propose");
  TunerOptions options{.cost_model = "xgb", .explorer = "sa", .trials = 20, .log_path = log};
  SyntheticMeasure measure{.optimum = {0, 0, 0}};
  std::set<int64_t> seen;
  for (int call = 0; call < 3; ++call) {
    absl::StatusOr<Proposal> p = ProposeNext(task, options, 8);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->so_far.trials, 8 * call);
    ASSERT_EQ(p->configs.size(), call < 2 ? 8u : 4u);
    absl::StatusOr<std::vector<MeasureResult>> results = measure.Fn()(task, p->configs);
    ASSERT_TRUE(results.ok());
    std::vector<Record> records;
    for (size_t i = 0; i < p->configs.size(); ++i) {
      EXPECT_TRUE(seen.insert(p->configs[i].index()).second) << "proposed twice";
      records.push_back({.task = task,
                         .config = p->configs[i].ToJson(),
                         .config_index = p->configs[i].index(),
                         .result = (*results)[i]});
    }
    absl::StatusOr<LogWriter> writer = LogWriter::Open(log);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append(records).ok());
  }
  absl::StatusOr<Proposal> done = ProposeNext(task, options, 8);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_TRUE(done->configs.empty());
  EXPECT_EQ(done->so_far.trials, 20);
  EXPECT_EQ(done->so_far.stop_reason, "budget");
  EXPECT_TRUE(done->so_far.best.has_value());
  EXPECT_EQ(ProposeNext(task, options, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

// The fallback's index under the task's space: what an untuned compile of the task uses.
int64_t FallbackIndex(const Task& task) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  EXPECT_TRUE(t.ok()) << t.status();
  absl::StatusOr<ops::Instantiated> fallback = ops::InstantiateFallback(**t, task.args, *facts);
  EXPECT_TRUE(fallback.ok()) << fallback.status();
  return fallback->config.index();
}

TEST(TunerTest, MeasureFallbackMeasuresTheUntunedConfigFirstAndOnce) {
  const Task task = DenseTask();
  const int64_t fallback = FallbackIndex(task);
  ASSERT_GE(fallback, 0);
  for (const std::string strategy : {"xgb", "random", "ga"}) {
    SCOPED_TRACE(strategy);
    TunerOptions options = strategy == "xgb" ? TunerOptions{.trials = 10} : BlackBox(strategy, 10);
    options.log_path = TempLog("fallback_" + strategy);
    options.measure_fallback = true;
    SyntheticMeasure first;
    ASSERT_TRUE(Tune(task, options, first.Fn()).ok());
    ASSERT_EQ(first.measured.size(), 10u);
    EXPECT_EQ(first.measured.front(), fallback);
    EXPECT_EQ(std::count(first.measured.begin(), first.measured.end(), fallback), 1);
    // Resumed from the log that holds it: not measured again.
    options.trials = 16;
    SyntheticMeasure second;
    ASSERT_TRUE(Tune(task, options, second.Fn()).ok());
    EXPECT_EQ(second.measured.size(), 6u);
    EXPECT_EQ(std::count(second.measured.begin(), second.measured.end(), fallback), 0);
  }
  // Off (the default): the random explorer's first draw, whatever the fallback is.
  SyntheticMeasure off_a, on_a;
  TunerOptions on = BlackBox("random", 4);
  on.measure_fallback = true;
  ASSERT_TRUE(Tune(task, BlackBox("random", 4), off_a.Fn()).ok());
  ASSERT_TRUE(Tune(task, on, on_a.Fn()).ok());
  EXPECT_NE(off_a.measured, on_a.measured);
}

}  // namespace
}  // namespace tessel::search
