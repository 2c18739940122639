// The README's example model (closest_model.cc) builds, registers, and does what it says.

#include <gtest/gtest.h>

#include <random>

#include "compiler/support/check.h"
#include "costmodels/cost_model.h"
#include "costmodels/testing/synthetic.h"

namespace tessel::costmodels {
namespace {

TEST(ClosestModelTest, RegistersAndScoresByDistanceToTheBest) {
  absl::StatusOr<std::unique_ptr<CostModel>> model = MakeCostModel("closest", {});
  ASSERT_TRUE(model.ok()) << model.status();
  const search::ConfigSpace space = testing::SyntheticSpace(3, 10);
  const search::Task task = testing::SyntheticTask();
  const std::vector<search::Config> all = testing::AllConfigs(space);

  absl::StatusOr<std::vector<double>> before = (*model)->Predict(task, all);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(*before, std::vector<double>(all.size(), 0.0));

  std::mt19937_64 rng(1);
  const std::vector<Sample> samples = testing::RandomSamples(task, space, 50, {3, 7, 5}, 100, rng);
  ASSERT_TRUE((*model)->Fit(samples).ok());
  const Sample* best = &samples[0];
  for (const Sample& s : samples)
    if (s.throughput > best->throughput) best = &s;
  absl::StatusOr<std::vector<double>> scores = (*model)->Predict(task, all);
  ASSERT_TRUE(scores.ok());
  EXPECT_EQ((*scores)[best->config.index()], 0.0);
  EXPECT_EQ(*std::max_element(scores->begin(), scores->end()), 0.0);
  // One knob step away scores -1.
  const search::Config neighbour = space.Neighbour(best->config, rng);
  const auto& a = neighbour.value_indices();
  const auto& b = best->config.value_indices();
  int64_t steps = 0;
  for (size_t k = 0; k < a.size(); ++k) steps += std::abs(a[k] - b[k]);
  EXPECT_EQ((*scores)[neighbour.index()], -static_cast<double>(steps));
}

}  // namespace
}  // namespace tessel::costmodels
