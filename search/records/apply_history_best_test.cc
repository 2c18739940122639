// Choosing the best record per task, and falling back with one warning per task.

#include "search/records/apply_history_best.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "search/records/log.h"
#include "search/records/test_records.h"

namespace tessel::search {
namespace {

using ::testing::HasSubstr;
using testing::ToyRecord;
using testing::ToyTask;

// The toy tasks' space: knob "k" with values 0..7, so config i has k = i.
ConfigSpace ToySpace() {
  ConfigSpace space;
  space.define_knob("k", {0, 1, 2, 3, 4, 5, 6, 7});
  return space;
}

// Captures what std::cerr receives while alive.
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  std::string text() const { return buffer_.str(); }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(ApplyHistoryBestTest, PicksLowestMeanCostAndIgnoresErrors) {
  const Task a = ToyTask();
  const Task b = ToyTask(8, "llvm -mcpu=znver3");
  ApplyHistoryBest best({
      ToyRecord(a, 1, {0.5, 0.5}),
      ToyRecord(a, 2, {0.125, 2.0}),  // the lowest single cost, but not the lowest mean
      ToyRecord(a, 3, {}, ErrorKind::kWrongAnswer),
      ToyRecord(a, 4, {0.25, 0.5}),  // mean 0.375: the best
      ToyRecord(a, 5, {}, ErrorKind::kRunTimeout),
      ToyRecord(b, 6, {9e-3}),
      ToyRecord(b, 7, {}, ErrorKind::kRuntime),
  });
  ASSERT_TRUE(best.Best(a.Key()).has_value());
  EXPECT_EQ(best.Best(a.Key())->config_index, 4);
  ASSERT_TRUE(best.Best(b.Key()).has_value());
  EXPECT_EQ(best.Best(b.Key())->config_index, 6);
  EXPECT_FALSE(best.Best(ToyTask(9).Key()).has_value());

  // Equal means (exact in binary): the earlier record wins.
  ApplyHistoryBest ties({ToyRecord(a, 1, {0.25, 0.25}), ToyRecord(a, 2, {0.125, 0.375})});
  EXPECT_EQ(ties.Best(a.Key())->config_index, 1);

  ApplyHistoryBest only_errors({ToyRecord(a, 3, {}, ErrorKind::kWrongAnswer)});
  EXPECT_FALSE(only_errors.Best(a.Key()).has_value());

  // Every successful record of a task, fastest first, ties in log order.
  std::vector<int> order;
  for (const Record& r : best.Successful(a.Key())) order.push_back(r.config_index);
  EXPECT_EQ(order, (std::vector<int>{4, 1, 2}));
  order.clear();
  for (const Record& r : ties.Successful(a.Key())) order.push_back(r.config_index);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(only_errors.Successful(a.Key()).empty());
}

TEST(ApplyHistoryBestTest, QueryReturnsTheBestConfigWithoutWarning) {
  const Task a = ToyTask();
  ApplyHistoryBest best({ToyRecord(a, 2, {2e-3}), ToyRecord(a, 5, {1e-3})});
  ConfigSpace space = ToySpace();
  CerrCapture cerr;
  Config config = best.Query(a, space, *space.Get(0));
  EXPECT_EQ(config.knob("k"), 5);
  EXPECT_EQ(config.index(), 5);
  EXPECT_EQ(cerr.text(), "");
}

TEST(ApplyHistoryBestTest, FallsBackWithOneWarningPerTask) {
  const Task tuned = ToyTask();
  const Task untuned_a = ToyTask(8, "llvm -mcpu=znver3");
  const Task untuned_b = ToyTask(7);
  ApplyHistoryBest best(
      {ToyRecord(tuned, 2, {2e-3}), ToyRecord(untuned_a, 3, {}, ErrorKind::kHostCompile)});
  ConfigSpace space = ToySpace();
  const Config fallback = *space.Get(7);
  CerrCapture cerr;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(best.Query(untuned_a, space, fallback).knob("k"), 7);
    EXPECT_EQ(best.Query(untuned_b, space, fallback).knob("k"), 7);
    EXPECT_EQ(best.Query(tuned, space, fallback).knob("k"), 2);
  }
  const std::string text = cerr.text();
  EXPECT_EQ(Count(text, "\n"), 2) << text;
  // untuned_a's workload is tuned for another target only: the warning names it.
  EXPECT_EQ(Count(text, absl::StrCat("no tuned config for ", untuned_a.Key(),
                                     " (tuned for 'llvm -mcpu=native' only, another target: a "
                                     "log tuned on another CPU is not applied here); using the "
                                     "template's fallback")),
            1)
      << text;
  EXPECT_EQ(best.OtherTargets(untuned_a), std::vector<std::string>{"llvm -mcpu=native"});
  EXPECT_TRUE(best.OtherTargets(tuned).empty());
  EXPECT_TRUE(best.OtherTargets(untuned_b).empty());
  EXPECT_EQ(Count(text, absl::StrCat("no tuned config for ", untuned_b.Key())), 1) << text;
}

TEST(ApplyHistoryBestTest, ConfigThatNoLongerFitsFallsBack) {
  const Task a = ToyTask();
  Record r = ToyRecord(a, 2, {2e-3});
  r.config["knobs"]["k"] = 99;  // the template's space changed since the log was written
  r.config.erase("index");
  ApplyHistoryBest best({r});
  ConfigSpace space = ToySpace();
  CerrCapture cerr;
  EXPECT_EQ(best.Query(a, space, *space.Get(0)).knob("k"), 0);
  EXPECT_THAT(cerr.text(), HasSubstr("does not fit the template's space"));
  EXPECT_THAT(cerr.text(), HasSubstr("using the template's fallback"));
}

TEST(ApplyHistoryBestTest, FromLogs) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path1 = absl::StrCat(dir ? dir : "/tmp", "/ahb1.jsonl");
  const std::string path2 = absl::StrCat(dir ? dir : "/tmp", "/ahb2.jsonl");
  std::remove(path1.c_str());
  std::remove(path2.c_str());
  const Task a = ToyTask();
  ASSERT_TRUE(LogWriter::Open(path1)->Append({ToyRecord(a, 1, {4e-3})}).ok());
  ASSERT_TRUE(LogWriter::Open(path2)->Append({ToyRecord(a, 6, {1e-3})}).ok());
  absl::StatusOr<ApplyHistoryBest> best = ApplyHistoryBest::FromLogs({path1, path2});
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->Best(a.Key())->config_index, 6);

  EXPECT_EQ(ApplyHistoryBest::FromLogs({path1, path2 + ".missing"}).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tessel::search
