// Confirmation by measuring again: a figure that regressed once and not again passes, one that
// regresses again fails with both values, only the regressed figures are measured again, and a
// remeasurement that fails or forgets a figure is an error.
#include "experiments/nightly/confirm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "experiments/nightly/test_records.h"

namespace tessel::experiments::nightly {
namespace {

Figure Ratio(const std::string& name, double value) {
  return testing::TestFigure(name, "table2", "x", true, value, {0.99, 0.995, 1.0, 1.005, 1.01});
}

Record Run(const std::string& commit, double c6, double c7) {
  return testing::TestRecord(commit, "2024-05-01T02:00:00Z",
                             {Ratio("table2/C6", c6), Ratio("table2/C7", c7)});
}

using testing::Row;

struct Fixture {
  Record baseline = Run("base", 3.3, 1.2);
  Record current = Run("head", 2.45, 1.2);  // C6 down 26%: beyond any threshold of the prior
  Verdict verdict;
  std::vector<std::vector<std::string>> asked;

  Fixture() {
    absl::StatusOr<Verdict> v = Judge(current, baseline, {});
    EXPECT_TRUE(v.ok()) << v.status();
    if (v.ok()) verdict = *v;
    EXPECT_FALSE(verdict.passed);
  }

  // A remeasurement that gives C6 this value (and records what it was asked for).
  Remeasure Giving(double c6) {
    return [this, c6](const std::vector<std::string>& figures) -> absl::StatusOr<Record> {
      asked.push_back(figures);
      return testing::TestRecord("head", "2024-05-01T02:30:00Z", {Ratio("table2/C6", c6)});
    };
  }
};

TEST(ConfirmTest, ARegressionThatDoesNotShowAgainPasses) {
  Fixture x;
  ASSERT_TRUE(ConfirmRegressions(x.verdict, x.baseline, {}, x.Giving(3.25)).ok());
  EXPECT_TRUE(x.verdict.passed);
  const FigureVerdict& c6 = Row(x.verdict, "table2/C6");
  EXPECT_EQ(c6.status, FigureStatus::kUnchanged);
  EXPECT_DOUBLE_EQ(c6.new_value, 2.45);  // the first value is kept
  EXPECT_DOUBLE_EQ(c6.rerun_value, 3.25);
  EXPECT_TRUE(FailureLines(x.verdict).empty());
  ASSERT_EQ(x.asked.size(), 1u);
  EXPECT_EQ(x.asked[0], std::vector<std::string>{"table2/C6"});  // C7 is not measured again
  EXPECT_TRUE(std::isnan(Row(x.verdict, "table2/C7").rerun_value));
}

TEST(ConfirmTest, ARegressionThatShowsAgainFailsWithBothValues) {
  Fixture x;
  ASSERT_TRUE(ConfirmRegressions(x.verdict, x.baseline, {}, x.Giving(2.5)).ok());
  EXPECT_FALSE(x.verdict.passed);
  EXPECT_EQ(Row(x.verdict, "table2/C6").status, FigureStatus::kRegressed);
  const std::vector<std::string> lines = FailureLines(x.verdict);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("regression: table2/C6 3.30x -> 2.45x"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("2.50x measured again"), std::string::npos) << lines[0];
}

TEST(ConfirmTest, NothingRegressedMeasuresNothing) {
  Fixture x;
  absl::StatusOr<Verdict> same = Judge(x.baseline, x.baseline, {});
  ASSERT_TRUE(same.ok());
  ASSERT_TRUE(ConfirmRegressions(*same, x.baseline, {}, x.Giving(1.0)).ok());
  EXPECT_TRUE(same->passed);
  EXPECT_TRUE(x.asked.empty());
}

TEST(ConfirmTest, AMissingFigureStaysAFailureAndIsNotMeasuredAgain) {
  Fixture x;
  Record without_c7 = x.current;
  without_c7.figures.pop_back();
  absl::StatusOr<Verdict> v = Judge(without_c7, x.baseline, {});
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(ConfirmRegressions(*v, x.baseline, {}, x.Giving(3.3)).ok());
  EXPECT_FALSE(v->passed);
  EXPECT_EQ(Row(*v, "table2/C7").status, FigureStatus::kMissing);
  ASSERT_EQ(x.asked.size(), 1u);
  EXPECT_EQ(x.asked[0], std::vector<std::string>{"table2/C6"});
}

TEST(ConfirmTest, AFailedOrIncompleteRemeasurementIsAnError) {
  Fixture x;
  absl::Status failed = ConfirmRegressions(
      x.verdict, x.baseline, {}, [](const std::vector<std::string>&) -> absl::StatusOr<Record> {
        return absl::InternalError("table2/C6: oneDNN failed");
      });
  EXPECT_EQ(failed.message(), "table2/C6: oneDNN failed");

  Fixture y;
  absl::Status incomplete = ConfirmRegressions(
      y.verdict, y.baseline, {}, [](const std::vector<std::string>&) -> absl::StatusOr<Record> {
        return testing::TestRecord("head", "2024-05-01T02:30:00Z", {});
      });
  EXPECT_EQ(incomplete.code(), absl::StatusCode::kInternal);
  EXPECT_NE(incomplete.message().find("'table2/C6' was measured again but has no value"),
            std::string::npos)
      << incomplete;
}

}  // namespace
}  // namespace tessel::experiments::nightly
