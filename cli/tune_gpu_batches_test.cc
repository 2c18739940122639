// `tessel tune --target cuda --bundle DIR`: batches built here, their results (written here as
// cuda_runner writes them on a GPU machine) read back into the log, until the budget is spent; and
// the user errors of the GPU targets.
#include "cli/tune_gpu_batches.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_tessel_for_test.h"
#include "search/records/log.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  fs::remove_all(path);
  return path;
}

const char kArgs[] = R"({"m": 16, "n": 100, "k": 77, "bias": true})";

std::vector<std::string> Tune(const std::string& dir, const std::string& log,
                              const std::string& target = "cuda -arch=sm_90") {
  return {"tune", "--template",    "dense.gpu", "--args",   kArgs, "--target", target, "--bundle",
          dir,    "--bundle-size", "4",         "--trials", "6",   "--log",    log};
}

// cuda_runner's result for DIR's batch: candidate i takes (i + 1) microseconds, except `wrong`.
void WriteResults(const std::string& dir, const std::string& wrong) {
  std::ifstream in(dir + "/batch.json");
  const nlohmann::json batch = nlohmann::json::parse(in);
  nlohmann::json entries = nlohmann::json::array();
  int i = 0;
  for (const nlohmann::json& c : batch["candidates"]) {
    const std::string name = c["entry"];
    ++i;
    if (name == wrong) {
      entries.push_back({{"name", name},
                         {"seconds", nlohmann::json::array()},
                         {"error", "output 0 at [0, 0] is 1 but the expected output gives 2"},
                         {"error_kind", "wrong_answer"}});
    } else {
      entries.push_back(
          {{"name", name}, {"seconds", {i * 1e-6, i * 1e-6}}, {"error", ""}, {"error_kind", ""}});
    }
  }
  std::ofstream(dir + "/results.json")
      << nlohmann::json{{"device", "a GPU"}, {"arch", "sm_90"}, {"entries", entries}}.dump();
}

size_t LogSize(const std::string& log) {
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? records->size() : 0;
}

TEST(TuneGpuBatchesTest, BatchesUntilTheBudget) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const std::string dir = TempPath("batch");
  const std::string log = TempPath("dense_cuda.jsonl");
  Outcome o = RunTessel(Tune(dir, log));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("batch    4 configs: 0 refused here and logged, 4 in"), std::string::npos)
      << o.out;
  EXPECT_TRUE(fs::exists(dir + "/bundle.json"));

  // Not measured yet: refused, and the batch stays.
  o = RunTessel(Tune(dir, log));
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("holds a batch that has not been measured"), std::string::npos) << o.err;
  EXPECT_TRUE(fs::exists(dir + "/bundle.json"));

  WriteResults(dir, "c1");
  o = RunTessel(Tune(dir, log));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("read 4 results of " + dir +
                       ", measured on a GPU (sm_90): 3 timed, "
                       "failed: 1 wrong_answer, best 0.0010 ms"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("batch    2 configs"), std::string::npos) << o.out;
  EXPECT_EQ(LogSize(log), 4u);

  WriteResults(dir, "");
  o = RunTessel(Tune(dir, log));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("tuning is over: budget"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best     0.0010 ms"), std::string::npos) << o.out;
  EXPECT_EQ(LogSize(log), 6u);
  EXPECT_FALSE(fs::exists(dir));

  // A batch of another task is not read into this log.
  const std::string other_log = TempPath("other.jsonl");
  o = RunTessel(Tune(dir, other_log));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  WriteResults(dir, "");
  std::vector<std::string> other = Tune(dir, other_log);
  other[4] = R"({"m": 8, "n": 100, "k": 77, "bias": true})";
  o = RunTessel(other);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("is a batch of dense.gpu|"), std::string::npos) << o.err;
}

// A model's tasks one after another: the first task's batches until its budget, then the next's,
// which starts from the first's records where the template is the same.
TEST(TuneGpuBatchesTest, AModelsTasksInTurn) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const std::string dir = TempPath("model_batch");
  const std::string log = TempPath("dqn_cuda.jsonl");
  const std::vector<std::string> tune = {"tune",
                                         "--workload",
                                         "dqn",
                                         "--target",
                                         "cuda -arch=sm_90",
                                         "--bundle",
                                         dir,
                                         "--bundle-size",
                                         "3",
                                         "--trials",
                                         "3",
                                         "--log",
                                         log};
  Outcome o = RunTessel(tune);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("task     [1/"), std::string::npos) << o.out;
  WriteResults(dir, "");
  o = RunTessel(tune);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("read 3 results of " + dir), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("trials   3 of 3 in " + log + " (0 failed); tuning is over: budget"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("task     [2/"), std::string::npos) << o.out;
  EXPECT_EQ(LogSize(log), 3u);
}

TEST(TuneGpuBatchesTest, UserErrors) {
  const std::string dir = TempPath("never");
  const std::string log = TempPath("never.jsonl");
  auto expect_error = [&](const std::vector<std::string>& args, const std::string& named) {
    Outcome o = RunTessel(args);
    EXPECT_NE(o.exit_code, 0);
    EXPECT_NE(o.err.find(named), std::string::npos) << "'" << named << "' not in: " << o.err;
  };
  std::vector<std::string> no_bundle = Tune(dir, log);
  no_bundle.erase(no_bundle.begin() + 7, no_bundle.begin() + 11);
  expect_error(no_bundle, "add --bundle DIR");
  expect_error({"tune", "--workload", "C6", "--bundle", dir, "--log", log},
               "--bundle goes with a cuda target");
  expect_error(Tune(dir, log, "opencl"), "not on opencl devices");
  std::vector<std::string> size = Tune(dir, log);
  size[10] = "0";
  expect_error(size, "--bundle-size must be >= 1");
  expect_error({"tune", "--workload", "dqn", "--target", "cuda", "--log", log}, "add --bundle DIR");
  expect_error({"tune", "--workload", "dqn", "--target", "opencl", "--log", log},
               "not on opencl devices");
  fs::create_directories(dir);
  expect_error(Tune(dir, log), "exists and is not a batch");
  EXPECT_FALSE(fs::exists(log));
}

}  // namespace
}  // namespace tessel::cli
