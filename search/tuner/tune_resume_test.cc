// kill -9 during tuning, then resume: the log keeps every batch that was appended, the resumed run
// measures none of its configs again, and at most the batch in flight is lost. The whole chain is
// real: a Measurer with its worker processes and libtorch's reference.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "search/measure/measure.h"
#include "search/measure/torch_reference.h"
#include "search/records/log.h"
#include "search/tuner/tuner.h"

namespace tessel::search {
namespace {

constexpr int kBudget = 16;
constexpr int kBatch = 2;

Task DenseTask() {
  return Task{.template_name = "dense_pack.x86",
              .args = {{"m", 8}, {"n", 32}, {"k", 32}},
              .target = target::Target::Llvm()};
}

std::string WorkerPath() {
  return std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") +
         "/search/measure/measure_worker";
}

MeasureOptions Options(const std::string& work_dir) {
  MeasureOptions options;
  options.build.workers = kBatch;
  options.run.repeat = 2;
  options.run.threads = 1;
  options.worker_path = WorkerPath();
  options.work_dir = work_dir;
  options.reference = TorchReferenceFn();
  return options;
}

TunerOptions Tuning(const std::string& log) {
  TunerOptions options{
      .cost_model = "xgb", .explorer = "sa", .features = "knob", .trials = kBudget, .plan_size = 8};
  options.log_path = log;
  options.batch_size = kBatch;
  return options;
}

size_t Lines(const std::string& path) {
  absl::StatusOr<std::vector<Record>> records = ReadLog(path);
  return records.ok() ? records->size() : 0;
}

TEST(TuneResumeTest, KilledTunerResumesWithoutMeasuringAConfigTwice) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/resume";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  const std::string log = dir + "/tune.jsonl";

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);  // so the kill below takes the measurer's workers too
    absl::StatusOr<Measurer> measurer = Measurer::Create(Options(dir + "/a"));
    if (!measurer.ok()) _exit(3);
    absl::StatusOr<TuneResult> r = Tune(DenseTask(), Tuning(log), *measurer);
    _exit(r.ok() ? 0 : 4);
  }
  setpgid(child, child);
  // Kill once a few batches are in the log: in the middle of tuning.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (Lines(log) < 6 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(kill(-child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the tuner finished before it was killed";
  const size_t kept = Lines(log);
  ASSERT_GE(kept, 6u);
  ASSERT_LT(kept, static_cast<size_t>(kBudget));

  absl::StatusOr<Measurer> measurer = Measurer::Create(Options(dir + "/b"));
  ASSERT_TRUE(measurer.ok()) << measurer.status();
  std::vector<int64_t> measured_after;
  MeasureFn recording = [&](const Task& task, const std::vector<Config>& configs) {
    for (const Config& c : configs) measured_after.push_back(c.index());
    return measurer->Measure(task, configs);
  };
  absl::StatusOr<TuneResult> resumed = Tune(DenseTask(), Tuning(log), recording);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->resumed, static_cast<int>(kept));
  EXPECT_EQ(resumed->trials, kBudget);
  EXPECT_EQ(measured_after.size(), kBudget - kept);

  absl::StatusOr<std::vector<Record>> records = ReadLog(log);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), static_cast<size_t>(kBudget));
  std::set<int64_t> seen;
  for (const Record& r : *records) {
    EXPECT_TRUE(seen.insert(r.config_index).second) << "config " << r.config_index << " twice";
    EXPECT_EQ(r.result.error, ErrorKind::kNone) << r.result.error_message;
  }
}

}  // namespace
}  // namespace tessel::search
