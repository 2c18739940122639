// The verdict on planted regressions (each named with its old and new value and the commits), on
// figures that only moved within their noise, and on runs drawn with the noise of the project's
// shared machines: an unchanged build must pass and a real slowdown must be named.
#include "experiments/nightly/verdict.h"

#include <absl/strings/str_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "compiler/runtime/timer.h"
#include "experiments/nightly/test_records.h"

namespace tessel::experiments::nightly {
namespace {

// A figure measured in 5 repeats within +-1% of its value.
Figure Fig(const std::string& name, const std::string& family, const std::string& unit,
           bool higher_is_better, double value) {
  return testing::TestFigure(name, family, unit, higher_is_better, value,
                             {0.99, 0.995, 1.0, 1.005, 1.01});
}

Record Night(const std::string& commit, std::vector<Figure> figures) {
  return testing::TestRecord(commit, absl::StrFormat("2024-05-01T02:00:00Z %s", commit),
                             std::move(figures));
}

// The figures of `base`, each value times factor (its repeats too).
Record Scaled(const std::string& commit, const Record& base, double factor) {
  Record r = base;
  r.commit = commit;
  r.date = absl::StrFormat("2024-05-01T02:00:00Z %s", commit);
  for (Figure& f : r.figures) {
    f.value *= factor;
    for (double& v : f.repeats) v *= factor;
  }
  return r;
}

// Six earlier runs of `base` in which every figure moved by up to 2% from run to run.
std::vector<Record> History(const Record& base) {
  std::vector<Record> history;
  int i = 0;
  for (double factor : {1.0, 1.02, 0.99, 1.01, 0.98, 1.0}) {
    history.push_back(Scaled(absl::StrFormat("old%d", i++), base, factor));
  }
  return history;
}

using testing::Row;

TEST(VerdictTest, NamesASlowdownWithOldAndNewValueAndTheCommits) {
  const Record baseline = Night("abc123", {Fig("network/resnet18", "networks", "x", true, 2.01),
                                           Fig("network/dqn", "networks", "x", true, 0.93)});
  Record current = Scaled("def456", baseline, 1.0);
  // 25% slower: the ratio ours / reference falls by a fifth.
  current.figures[0] = Fig("network/resnet18", "networks", "x", true, 2.01 / 1.25);
  absl::StatusOr<Verdict> v = Judge(current, baseline, History(baseline));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->passed);
  EXPECT_EQ(v->commit_range, "abc123..def456");
  EXPECT_EQ(v->history_runs, 6);
  const FigureVerdict& resnet = Row(*v, "network/resnet18");
  EXPECT_EQ(resnet.status, FigureStatus::kRegressed);
  EXPECT_NEAR(resnet.change, -0.2, 1e-9);
  // Runs that move by 2% give a threshold of about 3.5 x sqrt(2) x 2%.
  EXPECT_GT(resnet.threshold, 0.08);
  EXPECT_LT(resnet.threshold, 0.14);
  EXPECT_EQ(Row(*v, "network/dqn").status, FigureStatus::kUnchanged);
  const std::vector<std::string> lines = FailureLines(*v);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], absl::StrFormat("regression: network/resnet18 2.01x -> 1.61x (-20.0%%, "
                                      "threshold %.1f%%), commits abc123..def456",
                                      100 * resnet.threshold));
}

TEST(VerdictTest, EachFigureFailsOnlyInItsBadDirection) {
  const Record baseline = Night("abc123", {Fig("table2/C6", "table2", "x", true, 1.5),
                                           Fig("table2/C2", "table2", "x", true, 1.2),
                                           Fig("compile/resnet18", "compile", "s", false, 12.0),
                                           Fig("compile/dqn", "compile", "s", false, 3.0)});
  Record current = Scaled("def456", baseline, 1.0);
  current.figures[0] = Fig("table2/C6", "table2", "x", true, 1.5 * 0.75);           // slower
  current.figures[1] = Fig("table2/C2", "table2", "x", true, 1.2 * 1.25);           // faster
  current.figures[2] = Fig("compile/resnet18", "compile", "s", false, 12.0 * 1.3);  // slower
  current.figures[3] = Fig("compile/dqn", "compile", "s", false, 3.0 * 0.75);       // faster
  absl::StatusOr<Verdict> v = Judge(current, baseline, History(baseline));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->passed);
  EXPECT_EQ(Row(*v, "table2/C6").status, FigureStatus::kRegressed);
  EXPECT_EQ(Row(*v, "table2/C2").status, FigureStatus::kImproved);
  EXPECT_EQ(Row(*v, "compile/resnet18").status, FigureStatus::kRegressed);
  EXPECT_EQ(Row(*v, "compile/dqn").status, FigureStatus::kImproved);
  const std::vector<std::string> lines = FailureLines(*v);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("regression: table2/C6 1.50x -> 1.12x (-25.0%, threshold ", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("regression: compile/resnet18 12.0 s -> 15.6 s (+30.0%, threshold ", 0),
            0u)
      << lines[1];
}

TEST(VerdictTest, MovesWithinTheNoiseAreUnchanged) {
  const Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31),
                                           Fig("compile/dqn", "compile", "s", false, 3.0)});
  absl::StatusOr<Verdict> v = Judge(Scaled("def456", baseline, 0.97), baseline, History(baseline));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->passed);
  EXPECT_EQ(Row(*v, "gemm_1024").status, FigureStatus::kUnchanged);
  EXPECT_EQ(Row(*v, "compile/dqn").status, FigureStatus::kUnchanged);
  EXPECT_TRUE(FailureLines(*v).empty());
}

TEST(VerdictTest, AMissingFigureIsAFailureOfItsOwn) {
  const Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31),
                                           Fig("gemm_512", "gemm", "x", true, 1.12),
                                           Fig("network/dqn", "networks", "x", true, 0.93)});
  Record current = Scaled("def456", baseline, 1.0);
  current.figures.erase(current.figures.begin());
  current.figures[0].value = std::numeric_limits<double>::quiet_NaN();  // its measurement failed
  absl::StatusOr<Verdict> v = Judge(current, baseline, History(baseline));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->passed);
  EXPECT_EQ(Row(*v, "gemm_1024").status, FigureStatus::kMissing);
  EXPECT_EQ(Row(*v, "gemm_512").status, FigureStatus::kMissing);
  EXPECT_EQ(Row(*v, "network/dqn").status, FigureStatus::kUnchanged);
  EXPECT_EQ(FailureLines(*v),
            (std::vector<std::string>{
                "missing: gemm_1024 (baseline 1.31x) was not measured in this run, commits "
                "abc123..def456",
                "missing: gemm_512 (baseline 1.12x) was not measured in this run, commits "
                "abc123..def456"}));
}

TEST(VerdictTest, ANewFigureIsListedButNoFailure) {
  const Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31)});
  Record current = Scaled("def456", baseline, 1.0);
  current.figures.push_back(Fig("gemm_2048", "gemm", "x", true, 0.4));
  absl::StatusOr<Verdict> v = Judge(current, baseline, {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->passed);
  ASSERT_EQ(v->figures.size(), 2u);
  EXPECT_EQ(v->figures[1].name, "gemm_2048");
  EXPECT_EQ(v->figures[1].status, FigureStatus::kNew);
  EXPECT_EQ(v->figures[1].new_value, 0.4);
  EXPECT_TRUE(std::isnan(v->figures[1].old_value));
  EXPECT_TRUE(FailureLines(*v).empty());
}

TEST(VerdictTest, ABaselineOfAnotherSettingIsOneClearError) {
  const Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31)});
  Record current = Scaled("def456", baseline, 1.0);
  current.cpu = "skylake-avx512";
  absl::StatusOr<Verdict> v = Judge(current, baseline, {});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(v.status().message(),
            "the baseline (commit abc123) was recorded for suite 'quick' on cpu 'znver3' with 2 "
            "threads, this run is suite 'quick' on cpu 'skylake-avx512' with 2 threads: no figure "
            "can be compared; record a baseline for this setting with --update-baseline");
  current.cpu = "znver3";
  current.suite = "full";
  EXPECT_FALSE(Judge(current, baseline, {}).ok());
  current.suite = "quick";
  current.threads = 4;
  EXPECT_FALSE(Judge(current, baseline, {}).ok());
}

TEST(VerdictTest, ABaselineFigureWithoutAValueIsAnError) {
  Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31)});
  const Record current = Scaled("def456", baseline, 1.0);
  baseline.figures[0].value = std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<Verdict> v = Judge(current, baseline, {});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "the baseline's figure 'gemm_1024' has no positive value (-) to compare with");
}

TEST(VerdictTest, OnlyTheHistoryOfTheSameSettingCounts) {
  const Record baseline = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31)});
  const Record current = Scaled("def456", baseline, 1.0);
  std::vector<Record> history = History(baseline);
  for (Record& r : history) r.cpu = "skylake-avx512";
  absl::StatusOr<Verdict> v = Judge(current, baseline, history);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->history_runs, 0);
  // Without a history, the prior run-to-run spread (4%) stands in on both sides.
  const JudgeOptions options;
  const double noise = Row(*v, "gemm_1024").noise;
  EXPECT_NEAR(noise, std::sqrt(2.0) * options.run_spread_prior, 1e-9);
  EXPECT_NEAR(Row(*v, "gemm_1024").threshold, options.k * noise, 1e-9);

  // The current run, already appended, is not its own history.
  history = History(baseline);
  history.push_back(current);
  v = Judge(current, baseline, history);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->history_runs, 6);
}

TEST(VerdictTest, ThresholdsHaveAFloorAndACap) {
  const Record baseline = Night("abc123", {Fig("memory/resnet18", "memory", "MB", false, 100),
                                           Fig("network/lstm", "lstm", "x", true, 1.0)});
  std::vector<Record> history;
  int i = 0;
  for (double swing : {1.0, 1.6, 0.7, 1.5, 0.6, 1.4}) {
    Record r = Scaled(absl::StrFormat("old%d", i++), baseline, 1.0);
    r.figures[0].repeats.clear();  // deterministic: the same every run
    r.figures[1].value *= swing;   // wildly noisy
    history.push_back(r);
  }
  Record baseline_exact = baseline;
  baseline_exact.figures[0].repeats.clear();
  Record current = Scaled("def456", baseline_exact, 1.0);
  current.figures[0].value = 104;  // within the 5% floor
  current.figures[1].value = 0.55;
  absl::StatusOr<Verdict> v = Judge(current, baseline_exact, history);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Row(*v, "memory/resnet18").threshold, 0.05);
  EXPECT_EQ(Row(*v, "memory/resnet18").status, FigureStatus::kUnchanged);
  EXPECT_EQ(Row(*v, "network/lstm").threshold, 0.5);
  EXPECT_EQ(Row(*v, "network/lstm").status, FigureStatus::kUnchanged);

  current.figures[0].value = 106;
  current.figures[1].value = 0.45;
  v = Judge(current, baseline_exact, history);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Row(*v, "memory/resnet18").status, FigureStatus::kRegressed);
  EXPECT_EQ(Row(*v, "network/lstm").status, FigureStatus::kRegressed);
}

TEST(VerdictTest, BaselineFromRunsTakesEachFiguresMedian) {
  const Record one = Night("aaa111", {Fig("gemm_1024", "gemm", "x", true, 1.2),
                                      Fig("compile/dqn", "compile", "s", false, 3.0)});
  Record two = Scaled("bbb222", one, 1.1);
  two.figures.pop_back();  // compile/dqn was not measured
  const Record three = Scaled("ccc333", one, 0.9);
  absl::StatusOr<Record> merged = BaselineFromRuns({one, two, three});
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->commit, "ccc333");
  EXPECT_EQ(merged->runs, 3);
  ASSERT_EQ(merged->figures.size(), 2u);
  EXPECT_DOUBLE_EQ(merged->figures[0].value, 1.2);
  EXPECT_EQ(merged->figures[0].repeats.size(), 3u);
  EXPECT_DOUBLE_EQ(merged->figures[1].value, 3.0 * (1 + 0.9) / 2);
  EXPECT_EQ(merged->figures[1].repeats.size(), 2u);

  Record other = three;
  other.cpu = "skylake-avx512";
  absl::StatusOr<Record> mixed = BaselineFromRuns({one, other, three});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(),
            "run 1 (commit ccc333) is suite 'quick' on cpu 'skylake-avx512' with 2 threads, the "
            "newest is suite 'quick' on cpu 'znver3' with 2 threads");
  EXPECT_FALSE(BaselineFromRuns({}).ok());
}

TEST(VerdictTest, AMergedBaselineLowersTheThreshold) {
  const Record base = Night("abc123", {Fig("gemm_1024", "gemm", "x", true, 1.31)});
  const std::vector<Record> history = History(base);
  absl::StatusOr<Record> merged =
      BaselineFromRuns(std::vector<Record>(history.end() - 5, history.end()));
  ASSERT_TRUE(merged.ok()) << merged.status();
  const Record current = Scaled("def456", base, 1.0);
  absl::StatusOr<Verdict> single = Judge(current, history.back(), history);
  absl::StatusOr<Verdict> median = Judge(current, *merged, history);
  ASSERT_TRUE(single.ok() && median.ok());
  EXPECT_EQ(median->baseline_runs, 5);
  // One run's noise on each side, against one run's and a median of 5 runs' (1.2533 / sqrt(5)).
  EXPECT_NEAR(median->figures[0].noise / single->figures[0].noise,
              std::sqrt((1 + 1.2533 * 1.2533 / 5) / 2), 0.02);
}

// Synthetic nightly runs with the noise of the project's shared 2-core machines: each repeat of
// a figure off by lognormal noise of 4%, each run of it shifted by 3% (a ratio ours / reference
// moves between runs with the machine's state), 7 repeats per figure, 30 figures.
class NoisyRuns {
 public:
  explicit NoisyRuns(uint64_t seed) : rng_(seed) {}

  // slowdown > 1 makes `slowed` that much slower: its time grows by that factor.
  Record Draw(const std::string& commit, const std::string& slowed = "", double slowdown = 1) {
    std::normal_distribution<double> repeat_noise(0, 0.04);
    std::normal_distribution<double> run_shift(0, 0.03);
    std::vector<Figure> figures;
    for (int i = 0; i < 10; ++i) {
      figures.push_back(Make(absl::StrFormat("gemm_%d", 128 << i), "gemm", "x", true,
                             0.8 + 0.12 * i, run_shift, repeat_noise, slowed, slowdown));
      figures.push_back(Make(absl::StrFormat("network/n%d", i), "networks", "x", true,
                             1.0 + 0.1 * i, run_shift, repeat_noise, slowed, slowdown));
      figures.push_back(Make(absl::StrFormat("compile/n%d", i), "compile", "s", false,
                             2.0 + 1.5 * i, run_shift, repeat_noise, slowed, slowdown));
    }
    return Night(commit, std::move(figures));
  }

 private:
  Figure Make(const std::string& name, const std::string& family, const std::string& unit,
              bool higher_is_better, double truth, std::normal_distribution<double>& run_shift,
              std::normal_distribution<double>& repeat_noise, const std::string& slowed,
              double slowdown) {
    if (name == slowed) truth = higher_is_better ? truth / slowdown : truth * slowdown;
    const double shift = run_shift(rng_);
    Figure f;
    f.name = name;
    f.family = family;
    f.unit = unit;
    f.higher_is_better = higher_is_better;
    for (int r = 0; r < 7; ++r) f.repeats.push_back(truth * std::exp(shift + repeat_noise(rng_)));
    f.value = runtime::Median(f.repeats);
    return f;
  }

  std::mt19937_64 rng_;
};

// Judges 20 nightly runs, each with the runs before it as history, against a baseline merged
// from 5 runs drawn the same way (which start the history); returns how many runs failed on
// exactly the figures in `expected` (empty: how many passed).
int RunsWithExactly(uint64_t seed, const std::vector<std::string>& expected,
                    const std::string& slowed, double slowdown) {
  NoisyRuns draw(seed);
  std::vector<Record> history;
  for (int i = 0; i < 5; ++i) history.push_back(draw.Draw(absl::StrFormat("base%d", i)));
  absl::StatusOr<Record> baseline = BaselineFromRuns(history);
  EXPECT_TRUE(baseline.ok()) << baseline.status();
  int matching = 0;
  for (int night = 0; night < 20; ++night) {
    const Record run = draw.Draw(absl::StrFormat("night%d", night), slowed, slowdown);
    absl::StatusOr<Verdict> v = Judge(run, *baseline, history);
    EXPECT_TRUE(v.ok()) << v.status();
    std::vector<std::string> failed;
    for (const FigureVerdict& f : v->figures) {
      if (f.status == FigureStatus::kRegressed || f.status == FigureStatus::kMissing) {
        failed.push_back(f.name);
      }
    }
    if (failed == expected) {
      ++matching;
    } else {
      std::string lines;
      for (const std::string& line : FailureLines(*v)) lines += "\n  " + line;
      std::cout << "seed " << seed << ", night " << night << ":" << lines << "\n";
    }
    history.push_back(run);
  }
  return matching;
}

TEST(VerdictTest, AnUnchangedBuildPassesDespiteTheNoise) {
  EXPECT_GE(RunsWithExactly(1, {}, "", 1), 19);
  EXPECT_GE(RunsWithExactly(2, {}, "", 1), 19);
}

TEST(VerdictTest, ARealSlowdownOfOneFigureIsNamedAlone) {
  // A third slower: the ratio falls by a quarter, the compile time grows by a third.
  EXPECT_GE(RunsWithExactly(3, {"network/n4"}, "network/n4", 4.0 / 3), 19);
  EXPECT_GE(RunsWithExactly(4, {"compile/n7"}, "compile/n7", 4.0 / 3), 19);
}

TEST(VerdictTest, ValuesAndPercentagesReadAsPeopleWriteThem) {
  EXPECT_EQ(FormatValue(2.014, "x"), "2.01x");
  EXPECT_EQ(FormatValue(12.34, "s"), "12.3 s");
  EXPECT_EQ(FormatValue(std::nan(""), "x"), "-");
  EXPECT_EQ(FormatPercent(-0.1942, true), "-19.4%");
  EXPECT_EQ(FormatPercent(0.052, true), "+5.2%");
  EXPECT_EQ(FormatPercent(0.075, false), "7.5%");
  EXPECT_EQ(FormatPercent(std::numeric_limits<double>::infinity(), true), "-");
}

}  // namespace
}  // namespace tessel::experiments::nightly
