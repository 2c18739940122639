// oneDNN's baseline time: measured on a small conv2d, bad arguments named, and a recorded time
// reused only for the same arguments, threads, target and machine.
#include "experiments/onednn_baseline.h"

#include <gtest/gtest.h>

namespace tessel::experiments {
namespace {

const ops::OpArgs kSmall = {{"n", 1},   {"ic", 8}, {"h", 10}, {"w", 10},
                            {"oc", 16}, {"kh", 3}, {"kw", 3}, {"pad", {1, 1, 1, 1}}};

TEST(OnednnBaselineTest, MeasuresAtLeastSevenRepeats) {
  absl::StatusOr<BaselineTime> time = MeasureOnednnConv2d(kSmall, 1, 3);
  ASSERT_TRUE(time.ok()) << time.status();
  EXPECT_GE(time->repeats.size(), 7u);
  EXPECT_GT(time->seconds, 0);
  EXPECT_LT(time->seconds, 0.1);
  EXPECT_FALSE(time->implementation.empty());
  EXPECT_NE(time->measured_at.find("UTC"), std::string::npos);
}

TEST(OnednnBaselineTest, BadArgumentIsNamed) {
  ops::OpArgs bad = kSmall;
  bad.erase("kh");
  absl::StatusOr<BaselineTime> time = MeasureOnednnConv2d(bad, 1);
  ASSERT_FALSE(time.ok());
  EXPECT_NE(time.status().message().find("kh"), std::string::npos) << time.status();
}

TEST(OnednnBaselineTest, RecordedTimeIsReusedOnlyForTheSameKey) {
  const BaselineTime time{2e-3, {2e-3, 2e-3}, "jit:avx512", "2024-01-01 00:00:00 UTC"};
  const nlohmann::json key = BaselineKey(kSmall, 1, "llvm -mcpu=native");
  const nlohmann::json recorded = RecordBaseline(nlohmann::json(), "C6", key, time);

  std::optional<BaselineTime> found = FindRecordedBaseline(recorded, "C6", key);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->seconds, 2e-3);
  EXPECT_EQ(found->repeats, time.repeats);
  EXPECT_EQ(found->implementation, "jit:avx512");

  EXPECT_FALSE(FindRecordedBaseline(recorded, "C2", key));
  EXPECT_FALSE(FindRecordedBaseline(recorded, "C6", BaselineKey(kSmall, 2, "llvm -mcpu=native")));
  EXPECT_FALSE(FindRecordedBaseline(recorded, "C6", BaselineKey(kSmall, 1, "llvm")));
  ops::OpArgs other = kSmall;
  other["oc"] = 32;
  EXPECT_FALSE(FindRecordedBaseline(recorded, "C6", BaselineKey(other, 1, "llvm -mcpu=native")));
  // Damaged files read as nothing recorded.
  EXPECT_FALSE(FindRecordedBaseline(nlohmann::json("text"), "C6", key));
  nlohmann::json damaged = recorded;
  damaged["workloads"]["C6"]["seconds"] = "fast";
  EXPECT_FALSE(FindRecordedBaseline(damaged, "C6", key));
  // A second workload is added beside the first.
  const nlohmann::json both = RecordBaseline(recorded, "C2", key, time);
  EXPECT_TRUE(FindRecordedBaseline(both, "C6", key));
  EXPECT_TRUE(FindRecordedBaseline(both, "C2", key));
}

}  // namespace
}  // namespace tessel::experiments
