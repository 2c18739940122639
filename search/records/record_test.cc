// JSON form, error kinds and MeanCost of tuning records.

#include "search/records/record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "search/records/test_records.h"

namespace tessel::search {
namespace {

using ::testing::HasSubstr;
using testing::ToyRecord;
using testing::ToyTask;

void ExpectSame(const Record& a, const Record& b) {
  EXPECT_EQ(a.task, b.task);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.config_index, b.config_index);
  EXPECT_EQ(a.result.costs, b.result.costs);
  EXPECT_EQ(a.result.error, b.result.error);
  EXPECT_EQ(a.result.error_message, b.result.error_message);
  EXPECT_EQ(a.result.build_seconds, b.result.build_seconds);
  EXPECT_EQ(a.result.timestamp, b.result.timestamp);
  EXPECT_EQ(a.version, b.version);
}

TEST(RecordTest, JsonHasThePaperFields) {
  nlohmann::json j = ToJson(ToyRecord(ToyTask(), 3, {1e-3, 2e-3}));
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["task"]["template"], "toy.x86");
  EXPECT_EQ(j["task"]["target"], "llvm -mcpu=native");
  EXPECT_EQ(j["task"]["args"]["n"], 8);
  EXPECT_EQ(j["config"]["knobs"]["k"], 3);
  EXPECT_EQ(j["config_index"], 3);
  EXPECT_EQ(j["result"]["costs"], nlohmann::json({1e-3, 2e-3}));
  EXPECT_EQ(j["result"]["error"], "none");
  EXPECT_EQ(j["result"]["timestamp"], 1.7e9 + 3);
}

TEST(RecordTest, JsonRoundTripThroughText) {
  for (const Record& r : {ToyRecord(ToyTask(), 3, {1.25e-4, 1.5e-4, 1e-4}),
                          ToyRecord(ToyTask(4, "llvm"), 1, {}, ErrorKind::kRunTimeout)}) {
    absl::StatusOr<Record> back = RecordFromJson(nlohmann::json::parse(ToJson(r).dump()));
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectSame(*back, r);
  }
}

TEST(RecordTest, ErrorKindNamesRoundTrip) {
  const ErrorKind kinds[] = {ErrorKind::kNone,          ErrorKind::kInstantiation,
                             ErrorKind::kHostCompile,   ErrorKind::kDeviceCompile,
                             ErrorKind::kRuntime,       ErrorKind::kWrongAnswer,
                             ErrorKind::kBuildTimeout,  ErrorKind::kRunTimeout,
                             ErrorKind::kResourceLimit, ErrorKind::kUnknown};
  const char* names[] = {"none",           "instantiation", "host_compile",  "device_compile",
                         "runtime",        "wrong_answer",  "build_timeout", "run_timeout",
                         "resource_limit", "unknown"};
  for (int i = 0; i < 10; ++i) {
    EXPECT_STREQ(ErrorKindName(kinds[i]), names[i]);
    absl::StatusOr<ErrorKind> back = ErrorKindFromName(names[i]);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, kinds[i]);
  }
  EXPECT_THAT(ErrorKindFromName("segfault").status().message(),
              HasSubstr("unknown error kind 'segfault'"));
}

TEST(RecordTest, MeanCost) {
  EXPECT_DOUBLE_EQ(MeanCost(ToyRecord(ToyTask(), 0, {1.0, 2.0, 6.0}).result), 3.0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(MeanCost(ToyRecord(ToyTask(), 0, {}, ErrorKind::kWrongAnswer).result), inf);
  EXPECT_EQ(MeanCost(MeasureResult{}), inf);  // success without costs
}

// Each mutation of a good record's JSON and the field its error must name.
TEST(RecordTest, FromJsonNamesTheBadField) {
  const nlohmann::json good = ToJson(ToyRecord(ToyTask(), 3, {1e-3}));
  struct Case {
    std::function<void(nlohmann::json&)> mutate;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& j) { j.erase("version"); }, "version: missing"},
      {[](nlohmann::json& j) { j["version"] = 2; }, "unsupported record version 2"},
      {[](nlohmann::json& j) { j["version"] = "1"; }, "version: expected an integer"},
      {[](nlohmann::json& j) { j.erase("task"); }, "task: missing"},
      {[](nlohmann::json& j) { j["task"].erase("target"); }, "task.target: missing"},
      {[](nlohmann::json& j) { j["config"] = 3; }, "config: expected an object"},
      {[](nlohmann::json& j) { j.erase("config_index"); }, "config_index: missing"},
      {[](nlohmann::json& j) { j["config_index"] = 4; }, "config.index: 3 disagrees"},
      {[](nlohmann::json& j) { j.erase("result"); }, "result: missing"},
      {[](nlohmann::json& j) { j["result"].erase("costs"); }, "result.costs: missing"},
      {[](nlohmann::json& j) {
         j["result"]["costs"] = {1e-3, "x"};
       },
       "result.costs: expected"},
      {[](nlohmann::json& j) { j["result"]["costs"] = {-1.0}; }, "result.costs: expected"},
      {[](nlohmann::json& j) { j["result"]["error"] = "oops"; },
       "result.error: unknown error kind 'oops'"},
      {[](nlohmann::json& j) { j["result"]["error"] = 0; }, "result.error: expected a string"},
      {[](nlohmann::json& j) { j["result"].erase("timestamp"); }, "result.timestamp: missing"},
      {[](nlohmann::json& j) { j["result"]["build_seconds"] = nullptr; },
       "result.build_seconds: expected a number"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.mutate(j);
    absl::Status s = RecordFromJson(j).status();
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << j.dump();
  }
  EXPECT_THAT(RecordFromJson(nlohmann::json::array()).status().message(),
              HasSubstr("record: expected an object"));
}

}  // namespace
}  // namespace tessel::search
