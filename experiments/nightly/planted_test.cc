// The verdict on the real suite, end to end: a small suite (one Table 2 layer, one network's
// kernels, DQN's compile time: ResNet-18's took 300 of this test's 360 s) run three times for
// the baseline, again unchanged (it passes), and with each regression planted (a template forced
// to a poor config, the network compiled unfused, a compile four times as slow): the verdict,
// confirmed by measuring again what regressed as `tessel bench nightly` does, names each, with
// old and new values.
#include <absl/strings/str_join.h>
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <sstream>

#include "experiments/nightly/confirm.h"
#include "experiments/nightly/suite.h"
#include "experiments/nightly/verdict.h"
#include "experiments/test_files.h"

namespace tessel::experiments::nightly {
namespace {

SuiteOptions Small() {
  SuiteOptions o;
  o.quick = true;
  o.threads = 2;
  o.results_dir = "no_committed_logs";  // fallback configs: the test needs no tuning log
  o.work_dir = testing::TestOutDir("planted");
  o.compile_network = "dqn";
  o.only = {"table2/C6", "steps/dqn", "compile/dqn"};
  return o;
}

Record RunSmall(const SuiteOptions& o) {
  std::ostringstream progress;
  absl::StatusOr<Record> r = RunSuite(o, progress);
  std::cout << progress.str();  // every run's figures in the test log, for a false alarm's story
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : Record();
}

// Three runs cannot measure a figure's run-to-run spread (a nightly's history of 30 can): the
// verdict takes it as stated here. DQN's compile time has moved by up to 30% between runs on
// these shared 2-core machines (1.1 to 2.2 s), and three runs within 4% of each other made an
// unchanged 1.98 s a regression. Every planted regression moves its figure by 75% or more.
JudgeOptions ForThreeRuns() {
  JudgeOptions o;
  o.run_spread_prior = 0.1;
  o.min_history = 4;
  return o;
}

// Judges `run` against `baseline` and confirms its regressions by running `options` again on the
// regressed figures.
absl::StatusOr<Verdict> JudgeConfirmed(const Record& run, const Record& baseline,
                                       const std::vector<Record>& history,
                                       const SuiteOptions& options) {
  absl::StatusOr<Verdict> v = Judge(run, baseline, history, ForThreeRuns());
  if (!v.ok()) return v.status();
  absl::Status confirmed = ConfirmRegressions(
      *v, baseline, history,
      [&](const std::vector<std::string>& figures) {
        SuiteOptions again = options;
        again.only = figures;
        return RunSmall(again);
      },
      ForThreeRuns());
  if (!confirmed.ok()) return confirmed;
  return v;
}

const FigureVerdict* Find(const Verdict& v, const std::string& name) {
  for (const FigureVerdict& f : v.figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(PlantedRegressionsTest, TheVerdictNamesEachAndPassesAnUnchangedRun) {
  const SuiteOptions options = Small();
  // A baseline of three runs, as the nightly command keeps one (a median, and a history whose
  // run-to-run spread sets the thresholds): table2/C6's ratio here lands near 2.4x in some runs
  // and near 3.4x in others, which no single run's repeats show.
  std::vector<Record> history;
  for (int run = 0; run < 3; ++run) {
    history.push_back(RunSmall(options));
    ASSERT_EQ(history.back().figures.size(), 3u);
  }
  absl::StatusOr<Record> merged = BaselineFromRuns(history);
  ASSERT_TRUE(merged.ok()) << merged.status();
  const Record baseline = *merged;

  const Record unchanged = RunSmall(options);
  absl::StatusOr<Verdict> same = JudgeConfirmed(unchanged, baseline, history, options);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(same->passed) << absl::StrJoin(FailureLines(*same), "\n");

  struct Plant {
    std::function<void(Plants&)> set;
    std::string figure;
  };
  const std::vector<Plant> plants = {
      {[](Plants& p) { p.poor_config = true; }, "table2/C6"},
      {[](Plants& p) { p.unfused = true; }, "steps/dqn"},
      {[](Plants& p) { p.slow_compile = true; }, "compile/dqn"},
  };
  for (const Plant& plant : plants) {
    SuiteOptions planted = options;
    plant.set(planted.plants);
    planted.only = {plant.figure};
    const Record bad = RunSmall(planted);
    Record judged_against = baseline;  // the planted run measures one figure: judge that one
    std::erase_if(judged_against.figures, [&](const Figure& f) { return f.name != plant.figure; });
    absl::StatusOr<Verdict> v = JudgeConfirmed(bad, judged_against, history, planted);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->passed) << plant.figure;
    const FigureVerdict* f = Find(*v, plant.figure);
    ASSERT_NE(f, nullptr) << plant.figure;
    EXPECT_EQ(f->status, FigureStatus::kRegressed)
        << plant.figure << ": " << f->old_value << " -> " << f->new_value;
    const std::string lines = absl::StrJoin(FailureLines(*v), "\n");
    EXPECT_NE(lines.find("regression: " + plant.figure), std::string::npos) << lines;
  }
}

}  // namespace
}  // namespace tessel::experiments::nightly
