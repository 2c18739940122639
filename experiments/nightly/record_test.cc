// A nightly record through JSON and back, the errors that name what is wrong and where, and the
// history and baseline files.
#include "experiments/nightly/record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "compiler/support/atomic_file.h"
#include "experiments/nightly/test_records.h"
#include "experiments/test_files.h"

namespace tessel::experiments::nightly {
namespace {

using ::tessel::experiments::testing::CountLines;
using ::tessel::experiments::testing::ReadFile;
using ::tessel::experiments::testing::TestOutDir;

Record Sample(const std::string& commit) {
  Record r = testing::TestRecord(commit, "2024-05-01T02:00:00Z");
  r.versions = {{"onednn", "3.1.1"}, {"libtorch", "2.1.0"}};
  Figure gemm = MakeFigure("gemm_1024", "gemm", "x", true);
  gemm.value = 1.31;
  gemm.repeats = {1.30, 1.31, 1.33};
  gemm.absolute = {{"tessel_ms", 3.1}, {"openblas_ms", 4.06}};
  Figure compile = MakeFigure("compile/resnet18", "compile", "s", false);
  compile.value = 12.5;
  r.figures = {gemm, compile};
  return r;
}

void ExpectSame(const Record& a, const Record& b) {
  EXPECT_EQ(a.date, b.date);
  EXPECT_EQ(a.commit, b.commit);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.suite, b.suite);
  EXPECT_EQ(a.machine, b.machine);
  EXPECT_EQ(a.cpu, b.cpu);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.versions, b.versions);
  ASSERT_EQ(a.figures.size(), b.figures.size());
  for (size_t i = 0; i < a.figures.size(); ++i) {
    const Figure& x = a.figures[i];
    const Figure& y = b.figures[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.family, y.family);
    EXPECT_EQ(x.unit, y.unit);
    EXPECT_EQ(x.higher_is_better, y.higher_is_better);
    if (std::isnan(x.value)) {
      EXPECT_TRUE(std::isnan(y.value)) << y.name;
    } else {
      EXPECT_EQ(x.value, y.value) << x.name;
    }
    EXPECT_EQ(x.repeats, y.repeats) << x.name;
    EXPECT_EQ(x.absolute, y.absolute) << x.name;
  }
}

// The error RecordFromJson gives for the sample with `edit` applied.
std::string ErrorOf(void (*edit)(nlohmann::json&)) {
  nlohmann::json j = ToJson(Sample("abc123"));
  edit(j);
  absl::StatusOr<Record> r = RecordFromJson(j);
  return r.ok() ? "no error" : std::string(r.status().message());
}

TEST(RecordTest, RoundTripsThroughJsonText) {
  Record r = Sample("abc123");
  r.runs = 5;
  r.figures[1].value = std::numeric_limits<double>::quiet_NaN();  // not measured
  const std::string text = ToJson(r).dump();
  EXPECT_NE(text.find("\"value\":null"), std::string::npos) << text;
  absl::StatusOr<Record> back = RecordFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(r, *back);
  EXPECT_EQ(back->Find("gemm_1024"), &back->figures[0]);
  EXPECT_EQ(back->Find("nothing"), nullptr);
}

TEST(RecordTest, RecordsWithoutRunsAreSingleRuns) {
  nlohmann::json j = ToJson(Sample("abc123"));
  j.erase("runs");
  j["figures"][1].erase("repeats");
  j["figures"][1].erase("absolute");
  absl::StatusOr<Record> r = RecordFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->runs, 1);
  EXPECT_TRUE(r->figures[1].repeats.empty());
}

TEST(RecordTest, ErrorsNameTheJsonPath) {
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) {
              j["figures"][1]["repeats"] = {1.0, "fast"};
            }),
            "figures[1].repeats: expected an array of numbers");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][0]["repeats"] = 3; }),
            "figures[0].repeats: expected an array of numbers");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j.erase("commit"); }), "commit: missing");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][1].erase("unit"); }),
            "figures[1].unit: missing");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][0]["value"] = "1.3"; }),
            "figures[0].value: expected a number");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][0]["higher_is_better"] = 1; }),
            "figures[0].higher_is_better: expected true or false");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) {
              j["figures"][1]["absolute"] = {1, 2};
            }),
            "figures[1].absolute: expected an object");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["threads"] = 0; }),
            "threads: expected a positive integer");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["runs"] = 1.5; }),
            "runs: expected a positive integer");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["versions"] = "3.1"; }),
            "versions: expected an object");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"] = nlohmann::json::object(); }),
            "figures: expected an array");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][1]["name"] = "gemm_1024"; }),
            "figures[1].name: 'gemm_1024' names an earlier figure too");
  EXPECT_EQ(ErrorOf([](nlohmann::json& j) { j["figures"][1]["name"] = ""; }),
            "figures[1].name: expected a non-empty string");
}

TEST(RecordTest, HistoryAppendsOneLinePerRunAndReadsThemBack) {
  const std::string path = TestOutDir("history_append") + "/deep/folder/history.jsonl";
  absl::StatusOr<std::vector<Record>> none = ReadHistory(path);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  for (const char* commit : {"aaa111", "bbb222", "ccc333"}) {
    ASSERT_TRUE(AppendHistory(path, Sample(commit)).ok());
  }
  EXPECT_EQ(CountLines(ReadFile(path)), 3);
  absl::StatusOr<std::vector<Record>> history = ReadHistory(path);
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].commit, "aaa111");
  EXPECT_EQ((*history)[2].commit, "ccc333");
  ExpectSame((*history)[1], Sample("bbb222"));
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    EXPECT_EQ(entry.path().filename(), "history.jsonl");
  }
}

TEST(RecordTest, AppendCompletesATornLastLine) {
  const std::string path = TestOutDir("history_torn") + "/history.jsonl";
  ASSERT_TRUE(support::WriteFileAtomically(path, ToJson(Sample("aaa111")).dump()).ok());
  ASSERT_TRUE(AppendHistory(path, Sample("bbb222")).ok());
  absl::StatusOr<std::vector<Record>> history = ReadHistory(path);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->size(), 2u);
}

TEST(RecordTest, ACorruptLineIsNamedByFileAndNumber) {
  const std::string path = TestOutDir("history_corrupt") + "/history.jsonl";
  const std::string good = ToJson(Sample("aaa111")).dump();
  ASSERT_TRUE(
      support::WriteFileAtomically(path, good + "\n\n" + good.substr(0, 40) + "\n" + good + "\n")
          .ok());
  absl::StatusOr<std::vector<Record>> history = ReadHistory(path);
  ASSERT_FALSE(history.ok());
  EXPECT_EQ(history.status().message(), path + ":3: not a JSON object (a torn or edited line?)");

  nlohmann::json bad = ToJson(Sample("bbb222"));
  bad["figures"][1]["value"] = "slow";
  ASSERT_TRUE(support::WriteFileAtomically(path, good + "\n" + bad.dump() + "\n").ok());
  history = ReadHistory(path);
  ASSERT_FALSE(history.ok());
  EXPECT_EQ(history.status().message(), path + ":2: figures[1].value: expected a number");
}

TEST(RecordTest, AFailedAppendLeavesTheOldHistoryIntact) {
  const std::string dir = TestOutDir("history_failed_append");
  const std::string path = dir + "/history.jsonl";
  ASSERT_TRUE(AppendHistory(path, Sample("aaa111")).ok());
  const std::string before = ReadFile(path);
  // The temporary file the append writes first cannot be created: a folder holds its name.
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  ASSERT_TRUE(std::filesystem::create_directory(tmp));
  const absl::Status appended = AppendHistory(path, Sample("bbb222"));
  std::filesystem::remove(tmp);
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.message().find(tmp), std::string::npos) << appended;
  EXPECT_EQ(ReadFile(path), before);
}

TEST(RecordTest, BaselineRoundTripsAndErrorsNameTheFile) {
  const std::string path = TestOutDir("baseline") + "/results/nightly/znver3/baseline.json";
  Record r = Sample("abc123");
  r.runs = 3;
  ASSERT_TRUE(WriteBaseline(path, r).ok());
  EXPECT_GT(CountLines(ReadFile(path)), 10);  // pretty-printed, for reviews of its diffs
  absl::StatusOr<Record> back = ReadBaseline(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(r, *back);

  absl::StatusOr<Record> missing = ReadBaseline(path + ".nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(path + ".nope"), std::string::npos);

  ASSERT_TRUE(support::WriteFileAtomically(path, "{\"date\": 3}").ok());
  absl::StatusOr<Record> bad = ReadBaseline(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), path + ": date: expected a string");
  ASSERT_TRUE(support::WriteFileAtomically(path, "{").ok());
  bad = ReadBaseline(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), path + ": not JSON");
}

}  // namespace
}  // namespace tessel::experiments::nightly
