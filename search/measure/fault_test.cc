#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "compiler/target/target_facts.h"
#include "search/measure/measure.h"
#include "search/measure/testing/fault_templates.h"
#include "search/measure/testing/test_paths.h"
#include "search/measure/torch_reference.h"
#include "search/task/task.h"

// Candidates that crash, hang, err or compute nonsense, mixed with correct ones in one batch:
// each gets its error kind and a useful message, and the correct ones are still measured.
namespace tessel::search {
namespace {

using testing::FaultBehaviour;

const Task kTask{
    testing::kFaultTemplate, {{"shape", {4, 16}}}, *target::Target::Parse("llvm -mcpu=native")};

MeasureOptions Options() {
  MeasureOptions o;
  o.worker_path = testing::RunfilesBinary("fault_worker");
  o.reference = TorchReferenceFn();
  o.build.workers = 2;
  o.build.timeout_seconds = 3;
  o.run.timeout_seconds = 2;
  o.run.repeat = 2;
  return o;
}

std::vector<Config> Configs(const std::vector<FaultBehaviour>& behaviours) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(kTask.target);
  absl::StatusOr<ConfigSpace> space = Space(kTask, *facts);
  EXPECT_TRUE(space.ok()) << space.status();
  std::vector<Config> configs;
  for (FaultBehaviour b : behaviours) configs.push_back(*space->FromJson(testing::FaultConfig(b)));
  return configs;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(FaultTest, EveryFaultGetsItsKindAndTuningCarriesOn) {
  using enum FaultBehaviour;
  const std::vector<FaultBehaviour> behaviours = {kCorrect,   kSegfault, kCorrect, kHang,
                                                  kCorrect,   kWrong,    kReject,  kAbort,
                                                  kBuildHang, kCorrect};
  absl::StatusOr<Measurer> m = Measurer::Create(Options());
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<MeasureResult>> results = m->Measure(kTask, Configs(behaviours));
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), behaviours.size());
  for (size_t i = 0; i < behaviours.size(); ++i) {
    const MeasureResult& r = (*results)[i];
    const std::string& message = r.error_message;
    const std::string seen =
        testing::FaultConfig(behaviours[i]).dump() + ": " + ErrorKindName(r.error) + ": " + message;
    std::cout << seen << " (build " << r.build_seconds << " s)\n";
    SCOPED_TRACE(seen);
    EXPECT_GT(r.timestamp, 0);
    EXPECT_EQ(message.find('\n'), std::string::npos);
    if (behaviours[i] != kCorrect) {
      EXPECT_TRUE(r.costs.empty());
    }
    switch (behaviours[i]) {
      case kCorrect:
        EXPECT_EQ(r.error, ErrorKind::kNone);
        EXPECT_EQ(r.costs.size(), 2u);
        for (double c : r.costs) EXPECT_GT(c, 0);
        break;
      case kSegfault:
        EXPECT_EQ(r.error, ErrorKind::kRuntime);
        EXPECT_TRUE(Contains(message, "killed by signal SIGSEGV (Segmentation fault)"));
        break;
      case kHang:
        EXPECT_EQ(r.error, ErrorKind::kRunTimeout);
        EXPECT_TRUE(Contains(message, "run did not finish within 2 s"));
        break;
      case kWrong:
        EXPECT_EQ(r.error, ErrorKind::kWrongAnswer);
        EXPECT_TRUE(Contains(message, "but the reference gives"));
        break;
      case kReject:
        EXPECT_EQ(r.error, ErrorKind::kInstantiation);
        EXPECT_TRUE(Contains(message, "rejects behaviour 4 on purpose"));
        break;
      case kAbort:
        EXPECT_EQ(r.error, ErrorKind::kHostCompile);
        EXPECT_TRUE(Contains(message, "build worker killed by signal SIGABRT"));
        break;
      case kBuildHang:
        EXPECT_EQ(r.error, ErrorKind::kBuildTimeout);
        EXPECT_TRUE(Contains(message, "build did not finish within 3 s"));
        EXPECT_GE(r.build_seconds, 3);
        break;
    }
  }
  // Every worker was reaped: this process has no child left, not even a zombie.
  int status = 0;
  EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(FaultTest, AWorkerWithoutTheTemplateStopsMeasuring) {
  MeasureOptions o = Options();
  o.worker_path = testing::RunfilesBinary("measure_worker");
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_TRUE(m.ok());
  absl::Status s = m->Measure(kTask, Configs({FaultBehaviour::kCorrect})).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_TRUE(Contains(std::string(s.message()), "cannot build template 'fault_injection.test'"))
      << s;
}

TEST(FaultTest, AProgramThatIsNoWorkerStopsMeasuring) {
  MeasureOptions o = Options();
  o.worker_path = "/bin/true";
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_TRUE(m.ok());
  absl::Status s = m->Measure(kTask, Configs({FaultBehaviour::kCorrect})).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_TRUE(Contains(std::string(s.message()), "exited without a result")) << s;
}

TEST(FaultTest, AWorkerThatCannotStartStopsMeasuring) {
  const std::string copy = std::string(std::getenv("TEST_TMPDIR")) + "/vanishing_worker";
  std::filesystem::copy_file(testing::RunfilesBinary("fault_worker"), copy,
                             std::filesystem::copy_options::overwrite_existing);
  MeasureOptions o = Options();
  o.worker_path = copy;
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_TRUE(m.ok()) << m.status();
  std::filesystem::remove(copy);
  absl::Status s = m->Measure(kTask, Configs({FaultBehaviour::kCorrect})).status();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(std::string(s.message()), "the measure worker cannot start")) << s;
}

TEST(FaultTest, AFailingReferenceStopsMeasuring) {
  MeasureOptions o = Options();
  o.reference =
      [](const Task&,
         const std::vector<runtime::NDArray>&) -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return absl::UnavailableError("no reference today");
  };
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  ASSERT_TRUE(m.ok());
  absl::Status s = m->Measure(kTask, Configs({FaultBehaviour::kCorrect})).status();
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_TRUE(Contains(std::string(s.message()), "the reference failed: no reference today")) << s;
}

}  // namespace
}  // namespace tessel::search
