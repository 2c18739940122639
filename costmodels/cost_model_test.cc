// The cost model registry, the default FitTransfer, and SamplesFromRecords on a real template.

#include "costmodels/cost_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/support/check.h"

namespace tessel::costmodels {
namespace {

using ::testing::HasSubstr;

// A model that scores every config 7: registered here so the registry has a known entry.
class ConstantModel : public CostModel {
 public:
  std::string name() const override { return "test_constant"; }
  absl::Status Fit(const std::vector<Sample>&) override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<double>> Predict(const search::Task&,
                                              const std::vector<search::Config>& configs) override {
    return std::vector<double>(configs.size(), 7.0);
  }
  absl::Status Save(const std::string&) const override { return absl::OkStatus(); }
  absl::Status Load(const std::string&) override { return absl::OkStatus(); }
};

TESSEL_REGISTER_COST_MODEL(
    "test_constant", [](const CostModelOptions&) -> absl::StatusOr<std::unique_ptr<CostModel>> {
      return std::make_unique<ConstantModel>();
    });
TESSEL_REGISTER_COST_MODEL(
    "test_another", [](const CostModelOptions&) -> absl::StatusOr<std::unique_ptr<CostModel>> {
      return std::make_unique<ConstantModel>();
    });

TEST(CostModelRegistryTest, MakesARegisteredModel) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("test_constant", {});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->name(), "test_constant");
}

TEST(CostModelRegistryTest, NamesAreSorted) {
  const std::vector<std::string> names = CostModelNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THAT(names, ::testing::IsSupersetOf({"test_another", "test_constant"}));
}

TEST(CostModelRegistryTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("nope", {});
  ASSERT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(model.status().message(), HasSubstr("'nope'"));
  EXPECT_THAT(model.status().message(), HasSubstr("test_another, test_constant"));
}

TEST(CostModelRegistryTest, RegisteringANameTwiceFailsACheck) {
  EXPECT_DEATH(
      RegisterCostModel("test_constant",
                        [](const CostModelOptions&) -> absl::StatusOr<std::unique_ptr<CostModel>> {
                          return std::make_unique<ConstantModel>();
                        }),
      "registered twice");
}

TEST(CostModelTest, DefaultFitTransferIsUnimplementedNamingTheModel) {
  ConstantModel model;
  absl::Status status = model.FitTransfer({});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("'test_constant'"));
}

// --- SamplesFromRecords on dense_pack.x86 (flops 2 m n k without bias).

constexpr int64_t kM = 16, kN = 32, kK = 64;

target::TargetFacts Facts() {
  target::TargetFacts facts;
  facts.target = target::Target::Llvm();
  facts.vector_bits = 512;
  return facts;
}

search::Task DenseTask() {
  return search::Task{"dense_pack.x86", {{"m", kM}, {"n", kN}, {"k", kK}}, target::Target::Llvm()};
}

search::Record MeasuredRecord(const search::Task& task, int64_t index, std::vector<double> costs) {
  search::Record r;
  r.task = task;
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, Facts());
  TESSEL_CHECK(space.ok()) << space.status();
  search::Config config = *space->Get(index);
  r.config = config.ToJson();
  r.config_index = index;
  r.result.costs = std::move(costs);
  return r;
}

TEST(SamplesFromRecordsTest, ThroughputIsFlopsOverMeanCost) {
  const search::Task task = DenseTask();
  search::Record failed = MeasuredRecord(task, 5, {});
  failed.result.error = search::ErrorKind::kRuntime;
  failed.result.error_message = "crashed";
  absl::StatusOr<std::vector<Sample>> samples = SamplesFromRecords(
      {MeasuredRecord(task, 3, {1e-6, 3e-6}), failed, MeasuredRecord(task, 0, {4e-6})}, Facts());
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 3u);
  const double flops = 2.0 * kM * kN * kK;
  EXPECT_EQ((*samples)[0].task, task);
  EXPECT_EQ((*samples)[0].config.index(), 3);
  EXPECT_DOUBLE_EQ((*samples)[0].throughput, flops / 2e-6 / 1e9);
  EXPECT_EQ((*samples)[1].config.index(), 5);
  EXPECT_EQ((*samples)[1].throughput, 0);
  EXPECT_EQ((*samples)[2].config.index(), 0);
  EXPECT_DOUBLE_EQ((*samples)[2].throughput, flops / 4e-6 / 1e9);
}

TEST(SamplesFromRecordsTest, DecodesTheConfigInItsOwnTasksSpace) {
  // Two shapes of one template: each record's config is read in its own task's space.
  const search::Task small = DenseTask();
  search::Task large = small;
  large.args["n"] = 256;
  absl::StatusOr<std::vector<Sample>> samples = SamplesFromRecords(
      {MeasuredRecord(small, 1, {1e-6}), MeasuredRecord(large, 40, {1e-6})}, Facts());
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 2u);
  EXPECT_EQ((*samples)[1].task, large);
  EXPECT_EQ((*samples)[1].config.index(), 40);
  EXPECT_DOUBLE_EQ((*samples)[1].throughput, 2.0 * kM * 256 * kK / 1e-6 / 1e9);
}

TEST(SamplesFromRecordsTest, SkipsUnknownTemplatesAndConfigsOutsideTheSpace) {
  const search::Task task = DenseTask();
  search::Record unknown = MeasuredRecord(task, 1, {1e-6});
  unknown.task.template_name = "no_such_template.x86";
  search::Record outside = MeasuredRecord(task, 2, {1e-6});
  outside.config["knobs"]["pack_weight"] = 7;  // the knob has the values 0 and 1
  outside.config.erase("index");
  absl::StatusOr<std::vector<Sample>> samples =
      SamplesFromRecords({unknown, outside, MeasuredRecord(task, 4, {1e-6})}, Facts());
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 1u);
  EXPECT_EQ((*samples)[0].config.index(), 4);
}

TEST(SamplesFromRecordsTest, ArgsTheTemplateRejectsAreAnErrorNamingTheTask) {
  search::Record record = MeasuredRecord(DenseTask(), 0, {1e-6});
  record.task.args.erase("k");
  absl::StatusOr<std::vector<Sample>> samples = SamplesFromRecords({record}, Facts());
  ASSERT_FALSE(samples.ok());
  EXPECT_THAT(samples.status().message(), HasSubstr("dense_pack.x86|"));
  EXPECT_THAT(samples.status().message(), HasSubstr("'k'"));
}

}  // namespace
}  // namespace tessel::costmodels
