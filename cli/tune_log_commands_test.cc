// `tessel tune` and `tessel log`: user errors (one message naming what is wrong, a usage exit
// code, nothing written) and the log commands on a log written here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_tessel_for_test.h"
#include "search/records/log.h"
#include "workloads/table2.h"

namespace tessel::cli {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::filesystem::remove(path);
  return path;
}

void ExpectUsageError(const std::vector<std::string>& args, const std::string& named) {
  Outcome o = RunTessel(args);
  EXPECT_EQ(o.exit_code, kExitUsage) << o.err;
  EXPECT_NE(o.err.find(named), std::string::npos) << "'" << named << "' not in: " << o.err;
}

TEST(TuneCommandTest, UserErrorsNameTheProblemAndWriteNothing) {
  const std::string log = TempPath("never.jsonl");
  ExpectUsageError({"tune", "--workload", "C6", "--trials", "4"}, "--log");
  ExpectUsageError({"tune", "--workload", "C6", "--tuner", "bayes", "--log", log}, "bayes");
  ExpectUsageError({"tune", "--workload", "C13", "--log", log}, "C13");
  ExpectUsageError({"tune", "--log", log}, "--workload");
  ExpectUsageError({"tune", "--template", "dense_pack.x86", "--args", "{m:1}", "--log", log},
                   "--args");
  ExpectUsageError(
      {"tune", "--template", "dense_pack.x86", "--args", R"({"m":4,"n":4})", "--log", log}, "k");
  ExpectUsageError({"tune", "--workload", "C6", "--trials", "x", "--log", log}, "--trials");
  ExpectUsageError({"tune", "--workload", "C6", "--threads", "0", "--log", log}, "--threads");
  ExpectUsageError({"tune", "--workload", "C6", "--tuner", "xgb", "--model", "xgb", "--log", log},
                   "--tuner");
  ExpectUsageError({"tune", "--workload", "C6", "--model", "xgb", "--explorer", "ga", "--log", log},
                   "black-box");
  ExpectUsageError({"tune", "--workload", "C6", "--speed", "max", "--log", log}, "--speed");
  // VDLA tunes one operator, of the layers it computes.
  ExpectUsageError({"tune", "--workload", "resnet18", "--target", "vdla", "--log", log},
                   "--target vdla tunes one operator");
  ExpectUsageError({"tune", "--workload", "D9", "--target", "vdla", "--log", log},
                   "--workload D9: conv2d_int8.vdla: 'groups' must be 1, got 1024");
  ExpectUsageError({"tune", "--workload", "C1", "--target", "vdla", "--log", log},
                   "channels 3 -> 64 are not multiples of the accelerator's blocks 16 -> 16");
  EXPECT_FALSE(std::filesystem::exists(log));
}

// On VDLA the measurements are simulated cycles: a layer tunes in seconds, and configs whose
// buffers do not fit are recorded as resource limits.
TEST(TuneCommandTest, TunesALayerOnVdlaBySimulatedCycles) {
  const std::string log = TempPath("vdla.jsonl");
  Outcome o = RunTessel({"tune", "--workload", "C11", "--target", "vdla", "--tuner", "random",
                         "--trials", "12", "--seed", "1", "--log", log});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("task     conv2d_int8.vdla|"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("trials   12 (0 resumed"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best     "), std::string::npos) << o.out;
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 12u);
  for (const search::Record& r : *records) {
    EXPECT_TRUE(r.result.error == search::ErrorKind::kNone ||
                r.result.error == search::ErrorKind::kResourceLimit)
        << r.result.error_message;
    EXPECT_EQ(r.result.costs.size(), r.result.error == search::ErrorKind::kNone ? 1u : 0u);
  }
  // The tuned config is the bench's `tuned` row.
  Outcome bench = RunTessel({"bench", "ops", "--target", "vdla", "--layers", "C11", "--log", log});
  ASSERT_EQ(bench.exit_code, kExitOk) << bench.err;
  EXPECT_NE(bench.out.find("\nC11   tuned  "), std::string::npos) << bench.out;
}

TEST(LogCommandTest, SummaryAndBestReadALog) {
  const std::string log = TempPath("summary.jsonl");
  absl::StatusOr<search::LogWriter> writer = search::LogWriter::Open(log);
  ASSERT_TRUE(writer.ok()) << writer.status();
  search::Task task{.template_name = "dense_pack.x86",
                    .args = {{"m", 16}, {"n", 32}, {"k", 64}},
                    .target = target::Target::Llvm()};
  std::vector<search::Record> records(3);
  for (int i = 0; i < 3; ++i) {
    records[i].task = task;
    records[i].config = {{"index", i}, {"knobs", {{"stub", i}}}};
    records[i].config_index = i;
  }
  records[0].result.costs = {2e-6};
  records[1].result.costs = {1e-6};  // the best: 2 * 16 * 32 * 64 / 1e-6 = 65.5 GFLOPS
  records[2].result.error = search::ErrorKind::kRunTimeout;
  records[2].result.error_message = "run did not finish";
  ASSERT_TRUE(writer->Append(records).ok());

  Outcome summary = RunTessel({"log", "summary", log});
  ASSERT_EQ(summary.exit_code, kExitOk) << summary.err;
  EXPECT_NE(summary.out.find("3 records, 1 tasks"), std::string::npos) << summary.out;
  EXPECT_NE(summary.out.find("trials 3, failed 1 (run_timeout 1)"), std::string::npos)
      << summary.out;
  EXPECT_NE(summary.out.find("best 0.0010 ms, 65.54 GFLOPS, config 1"), std::string::npos)
      << summary.out;

  Outcome best = RunTessel({"log", "best", log});
  ASSERT_EQ(best.exit_code, kExitOk) << best.err;
  EXPECT_NE(best.out.find("\"config_index\":1"), std::string::npos) << best.out;
  EXPECT_EQ(std::count(best.out.begin(), best.out.end(), '\n'), 1);
}

TEST(LogCommandTest, ErrorsNameTheFileAndLine) {
  const std::string log = TempPath("broken.jsonl");
  std::ofstream(log) << "{\"version\": 1}\n";
  Outcome broken = RunTessel({"log", "summary", log});
  EXPECT_EQ(broken.exit_code, kExitFailed);
  EXPECT_NE(broken.err.find(log + ":1"), std::string::npos) << broken.err;
  Outcome missing = RunTessel({"log", "best", "/nonexistent/log.jsonl"});
  EXPECT_NE(missing.exit_code, kExitOk);
  EXPECT_NE(missing.err.find("/nonexistent/log.jsonl"), std::string::npos) << missing.err;
  ExpectUsageError({"log", "show", log}, "usage: tessel log");
  ExpectUsageError({"log"}, "usage: tessel log");
}

TEST(BenchOpsLogTest, TunedConfigsComeFromTheLog) {
  // A record for C11 (1x1 stride 2, the NCHWc template) with a config other than the fallback.
  Outcome plain = RunTessel({"bench", "ops", "--layers", "C11", "--repeat", "5"});
  ASSERT_EQ(plain.exit_code, kExitOk) << plain.err;
  EXPECT_EQ(plain.out.find("ratio  config"), std::string::npos) << "a config column without a log";
  const std::string target_line = plain.out.substr(plain.out.find("target: ") + 8);
  const std::string target = target_line.substr(0, target_line.find(" (cpu"));
  const std::string log = TempPath("bench.jsonl");
  search::Record record;
  record.task = {.template_name = "conv2d_nchwc.x86",
                 .args = workloads::Conv2dArgs(*workloads::FindLayer("C11")),
                 .target = *target::Target::Parse(target)};
  record.config = {{"knobs",
                    {{"tile_ic", {32, 8}},
                     {"tile_oc", {32, 16}},
                     {"tile_ow", {1, 7}},
                     {"tile_oh", {7, 1}},
                     {"unroll_kw", 0},
                     {"pad_at_tile", 0},
                     {"reorder_reduce", {0, 1, 2, 3}},
                     {"oc_inner", 1}}}};
  record.result.costs = {1e-4};
  absl::StatusOr<search::LogWriter> writer = search::LogWriter::Open(log);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(writer->Append({record}).ok());

  Outcome tuned = RunTessel({"bench", "ops", "--layers", "C11", "--repeat", "5", "--log", log});
  ASSERT_EQ(tuned.exit_code, kExitOk) << tuned.err;
  EXPECT_NE(tuned.out.find("with the best config of " + log), std::string::npos) << tuned.out;
  EXPECT_NE(tuned.out.find("tuned     yes"), std::string::npos) << tuned.out;
  Outcome other = RunTessel({"bench", "ops", "--layers", "C10", "--repeat", "5", "--log", log});
  ASSERT_EQ(other.exit_code, kExitOk) << other.err;
  EXPECT_NE(other.out.find("fallback  yes"), std::string::npos) << other.out;
  Outcome missing = RunTessel({"bench", "ops", "--layers", "C11", "--log", "/nonexistent/l.jsonl"});
  EXPECT_NE(missing.exit_code, kExitOk);
  EXPECT_NE(missing.err.find("/nonexistent/l.jsonl"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tessel::cli
