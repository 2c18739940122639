// `tessel tune` over whole models: user errors (each message names the flag or file, nothing is
// written), --list-tasks, and short real tuning runs (an ONNX model and two tasks of DQN, a few
// trials each, measured by the worker and checked against libtorch) that resume and that
// `tessel compile` then finds in the log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_tessel_for_test.h"
#include "search/records/log.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// conv2d with a bias add: one task.
const fs::path kConvModel =
    "external/conformance/onnx/pytorch-converted/test_Conv2d_strided/model.onnx";

fs::path TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  fs::path path = fs::path(dir ? dir : "/tmp") / name;
  fs::remove_all(path);
  return path;
}

void ExpectError(const std::vector<std::string>& args, const std::string& named) {
  Outcome o = RunTessel(args);
  EXPECT_NE(o.exit_code, kExitOk) << o.out;
  EXPECT_THAT(o.err, HasSubstr(named)) << "tessel " << args[1];
}

// Quick measurements: one repeat of at least 1 ms.
std::vector<std::string> Quick(std::vector<std::string> args) {
  for (const char* word : {"--repeat", "1", "--min-repeat-ms", "1", "--timeout", "20"})
    args.push_back(word);
  return args;
}

std::map<std::string, int> RecordsPerTask(const std::string& log) {
  std::map<std::string, int> count;
  absl::StatusOr<std::vector<search::Record>> records = search::ReadLog(log);
  EXPECT_TRUE(records.ok()) << records.status();
  if (records.ok())
    for (const search::Record& r : *records) ++count[r.task.Key()];
  return count;
}

TEST(TuneModelTest, UserErrorsNameTheFlagAndWriteNothing) {
  const std::string log = TempPath("never.jsonl").string();
  const std::string model = kConvModel.string();
  ExpectError({"tune", "missing.onnx", "--log", log}, "missing.onnx");
  ExpectError({"tune", model, "other.onnx", "--log", log}, "takes one model, got 'other.onnx'");
  ExpectError({"tune", model, "--workload", "dqn", "--log", log}, "not both");
  ExpectError({"tune", "--workload", "resnet19", "--log", log}, "--workload resnet19");
  // An unknown name lists both kinds of workload.
  ExpectError({"tune", "--workload", "resnet19", "--log", log}, "resnet18");
  ExpectError({"tune", "--workload", "resnet19", "--log", log}, "or a Table 2 layer");
  ExpectError({"tune", "--workload", "resnet19", "--log", log}, "C12");
  ExpectError({"tune", "--workload", "dqn"}, "--log");
  ExpectError({"tune", "--workload", "dqn", "--tasks", "99", "--log", log}, "--tasks");
  ExpectError({"tune", "--workload", "dqn", "--tasks", "99", "--log", log}, "no task 99");
  ExpectError({"tune", "--workload", "dqn", "--tasks", "0,x", "--log", log},
              "--tasks takes task indices");
  ExpectError({"tune", "--workload", "dqn", "--tasks", "-1", "--log", log},
              "--tasks takes task indices");
  ExpectError({"tune", "--workload", "dqn", "--args", R"({"m":1})", "--log", log}, "--args");
  ExpectError({"tune", model, "--template", "dense_pack.x86", "--log", log}, "--template");
  ExpectError({"tune", "--workload", "dqn", "--batch", "0", "--log", log}, "--workload dqn");
  ExpectError({"tune", "--workload", "dqn", "--dim", "N=2", "--log", log}, "--dim");
  ExpectError({"tune", model, "--batch", "2", "--log", log}, "--batch");
  ExpectError({"tune", model, "--dim", "batch", "--log", log}, "--dim takes NAME=VALUE");
  ExpectError({"tune", model, "--dim", "batch=0", "--log", log}, "--dim batch=0");
  ExpectError({"tune", model, "--target", "cuda", "--log", log}, "--target");
  ExpectError({"tune", model, "--trials", "-1", "--log", log}, "--trials");
  ExpectError({"tune", model, "--tuner", "bayes", "--log", log}, "--tuner");
  ExpectError({"tune", model, "--list-task"}, "'--list-task'");
  // The model-only flags are refused for one operator.
  ExpectError({"tune", "--workload", "C6", "--tasks", "0", "--log", log}, "--tasks");
  ExpectError({"tune", "--workload", "C6", "--list-tasks"}, "--list-tasks");
  ExpectError({"tune", "--workload", "C6", "--no-optimize-graph", "--log", log},
              "--no-optimize-graph");
  ExpectError({"tune", "--workload", "C6", "--no-transfer", "--log", log}, "--no-transfer");
  ExpectError({"tune", "--workload", "C6", "--batch", "2", "--log", log}, "--batch");
  EXPECT_FALSE(fs::exists(log));
}

TEST(TuneModelTest, ListTasksPrintsEachTaskAndTunesNothing) {
  Outcome o = RunTessel({"tune", "--workload", "dqn", "--list-tasks"});
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  // The target names this CPU (a log says which CPU it was tuned on), not "native".
  EXPECT_THAT(o.out, HasSubstr("5 tasks of dqn (batch 1) for llvm -mcpu="));
  EXPECT_THAT(o.out, Not(HasSubstr("native")));
  EXPECT_THAT(o.out, HasSubstr("  0  conv2d_nchwc.x86 {"));
  EXPECT_THAT(o.out, HasSubstr("\"oc\":32"));
  EXPECT_THAT(o.out, HasSubstr("}  space "));
  EXPECT_THAT(o.out, HasSubstr("  4  dense_pack.x86 {"));
  EXPECT_THAT(o.out, Not(HasSubstr("  5  ")));

  Outcome some = RunTessel({"tune", "--workload", "dqn", "--list-tasks", "--tasks", "3,1"});
  ASSERT_EQ(some.exit_code, kExitOk) << some.err;
  EXPECT_THAT(some.out, HasSubstr("  1  "));
  EXPECT_THAT(some.out, HasSubstr("  3  "));
  EXPECT_THAT(some.out, Not(HasSubstr("  0  ")));

  Outcome raw = RunTessel({"tune", kConvModel.string(), "--list-tasks", "--no-optimize-graph"});
  ASSERT_EQ(raw.exit_code, kExitOk) << raw.err;
  EXPECT_THAT(raw.out, HasSubstr("1 tasks of " + kConvModel.string()));
  EXPECT_THAT(raw.out, HasSubstr("(graph not optimized)"));
}

TEST(TuneModelTest, TunesAnOnnxModelResumesAndCompileUsesTheLog) {
  const std::string log = TempPath("conv.jsonl").string();
  const std::string model = kConvModel.string();
  Outcome o = RunTessel(Quick({"tune", model, "--tuner", "random", "--trials", "2", "--log", log}));
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("tuning the 1 tasks of " + model));
  EXPECT_THAT(o.out, HasSubstr("[task 1/1] conv2d_"));
  EXPECT_THAT(o.out, HasSubstr("2 trials (0 resumed, 0 failed), stopped: budget"));
  EXPECT_THAT(o.out, HasSubstr("tuned 1 tasks in "));
  std::map<std::string, int> logged = RecordsPerTask(log);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged.begin()->second, 2);

  // A rerun with a larger budget measures only the difference.
  Outcome again =
      RunTessel(Quick({"tune", model, "--tuner", "random", "--trials", "3", "--log", log}));
  ASSERT_EQ(again.exit_code, kExitOk) << again.err;
  EXPECT_THAT(again.out, HasSubstr("3 trials (2 resumed, 0 failed)"));
  EXPECT_EQ(RecordsPerTask(log).begin()->second, 3);

  const std::string dir = TempPath("conv_model").string();
  Outcome compiled = RunTessel({"compile", model, "--log", log, "-o", dir});
  ASSERT_EQ(compiled.exit_code, kExitOk) << compiled.err;
  EXPECT_THAT(compiled.out, HasSubstr(" (1 tuned, "));
  EXPECT_THAT(compiled.out, Not(HasSubstr(logged.begin()->first)));
}

TEST(TuneModelTest, TunesTheChosenTasksOfANetworkWithTransfer) {
  const std::string log = TempPath("dqn.jsonl").string();
  // Tasks 3 and 4 are DQN's two dense layers: the second takes the first's records as prior.
  Outcome o = RunTessel(Quick({"tune", "--workload", "dqn", "--tasks", "3,4", "--tuner", "xgb",
                               "--trials", "2", "--log", log}));
  ASSERT_EQ(o.exit_code, kExitOk) << o.err;
  EXPECT_THAT(o.out, HasSubstr("tuning 2 of the 5 tasks of dqn (batch 1)"));
  EXPECT_THAT(o.out, HasSubstr("[task 1/2] #3 dense_pack.x86 (node '"));
  EXPECT_THAT(o.out, HasSubstr("[task 2/2] #4 dense_pack.x86 (node '"));
  EXPECT_THAT(o.out, HasSubstr("tuned 2 tasks in "));
  const std::map<std::string, int> logged = RecordsPerTask(log);
  ASSERT_EQ(logged.size(), 2u);
  for (const auto& [key, n] : logged) EXPECT_EQ(n, 2) << key;
}

}  // namespace
}  // namespace tessel::cli
