#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include "search/measure/measure.h"
#include "search/measure/testing/test_paths.h"

namespace tessel::search {
namespace {

MeasureOptions ValidOptions() {
  MeasureOptions o;
  o.worker_path = testing::RunfilesBinary("measure_worker");
  o.run.check_correctness = false;
  return o;
}

// Create with one option changed fails with a message naming `option`.
void ExpectRejected(const std::function<void(MeasureOptions&)>& change, const std::string& option) {
  MeasureOptions o = ValidOptions();
  change(o);
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_FALSE(m.ok()) << option;
  EXPECT_TRUE(absl::IsInvalidArgument(m.status())) << m.status();
  EXPECT_NE(m.status().message().find("MeasureOptions." + option), std::string::npos) << m.status();
}

TEST(MeasureOptionsTest, ValidOptionsAreAccepted) {
  EXPECT_TRUE(Measurer::Create(ValidOptions()).ok());
}

TEST(MeasureOptionsTest, EachBadOptionIsNamed) {
  ExpectRejected([](MeasureOptions& o) { o.worker_path = "/no/such/worker"; }, "worker_path");
  ExpectRejected([](MeasureOptions& o) { o.worker_path = std::getenv("TEST_TMPDIR"); },
                 "worker_path");
  ExpectRejected([](MeasureOptions& o) { o.build.workers = 0; }, "build.workers");
  ExpectRejected([](MeasureOptions& o) { o.build.timeout_seconds = 0; }, "build.timeout_seconds");
  ExpectRejected([](MeasureOptions& o) { o.run.number = 0; }, "run.number");
  ExpectRejected([](MeasureOptions& o) { o.run.repeat = 0; }, "run.repeat");
  ExpectRejected([](MeasureOptions& o) { o.run.min_repeat_ms = -1; }, "run.min_repeat_ms");
  ExpectRejected([](MeasureOptions& o) { o.run.min_repeat_ms = NAN; }, "run.min_repeat_ms");
  ExpectRejected([](MeasureOptions& o) { o.run.threads = -1; }, "run.threads");
  ExpectRejected([](MeasureOptions& o) { o.run.timeout_seconds = -2; }, "run.timeout_seconds");
  ExpectRejected([](MeasureOptions& o) { o.run.atol = -1; }, "run.atol");
  ExpectRejected([](MeasureOptions& o) { o.run.rtol = NAN; }, "run.rtol");
  ExpectRejected([](MeasureOptions& o) { o.run.check_correctness = true; }, "reference");
  ExpectRejected([](MeasureOptions& o) { o.work_dir = "/proc/no_such_dir"; }, "work_dir");
}

TEST(MeasureOptionsTest, RepeatMessageSaysWhatIsAllowed) {
  MeasureOptions o = ValidOptions();
  o.run.repeat = 0;
  EXPECT_EQ(Measurer::Create(o).status().message(),
            "MeasureOptions.run.repeat must be >= 1, got 0");
}

TEST(MeasureOptionsTest, OwnedWorkDirIsRemoved) {
  const std::string tmp = std::string(std::getenv("TEST_TMPDIR")) + "/owned";
  std::filesystem::create_directories(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  {
    absl::StatusOr<Measurer> m = Measurer::Create(ValidOptions());
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_FALSE(std::filesystem::is_empty(tmp));
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
  if (old) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

TEST(MeasureOptionsTest, GivenWorkDirIsKept) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/given/work";
  MeasureOptions o = ValidOptions();
  o.work_dir = dir;
  { ASSERT_TRUE(Measurer::Create(o).ok()); }
  EXPECT_TRUE(std::filesystem::is_directory(dir));
}

TEST(DefaultWorkerPathTest, FindsTheWorkerInTheRunfiles) {
  unsetenv("TESSEL_MEASURE_WORKER");
  absl::StatusOr<std::string> path = DefaultWorkerPath();
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_TRUE(path->ends_with("search/measure/measure_worker")) << *path;
  // An empty worker_path means the default.
  MeasureOptions o = ValidOptions();
  o.worker_path.clear();
  EXPECT_TRUE(Measurer::Create(o).ok());
}

TEST(DefaultWorkerPathTest, EnvironmentVariableWins) {
  const std::string worker = testing::RunfilesBinary("measure_worker");
  setenv("TESSEL_MEASURE_WORKER", worker.c_str(), 1);
  EXPECT_EQ(*DefaultWorkerPath(), worker);
  setenv("TESSEL_MEASURE_WORKER", "/no/such/worker", 1);
  absl::Status bad = DefaultWorkerPath().status();
  EXPECT_TRUE(absl::IsNotFound(bad));
  EXPECT_NE(bad.message().find("$TESSEL_MEASURE_WORKER is '/no/such/worker'"), std::string::npos)
      << bad;
  MeasureOptions o = ValidOptions();
  o.worker_path.clear();
  absl::Status created = Measurer::Create(o).status();
  EXPECT_NE(created.message().find("MeasureOptions.worker_path is empty"), std::string::npos)
      << created;
  unsetenv("TESSEL_MEASURE_WORKER");
}

}  // namespace
}  // namespace tessel::search
