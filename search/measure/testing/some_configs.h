#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// Configs for the measurement tests: the task's fallback and n distinct sampled points.
namespace tessel::search::testing {

// The fallback config and n distinct configs sampled with `seed` (failures are test failures).
inline std::vector<Config> SomeConfigs(const Task& task, int n, uint64_t seed = 7) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  EXPECT_TRUE(facts.ok()) << facts.status();
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  EXPECT_TRUE(space.ok()) << space.status();
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<Config> configs = {(*t)->fallback(*space, task.args, *facts)};
  std::mt19937_64 rng(seed);
  for (const Config& c : space->SampleUnique(n, rng, {configs[0].index()})) configs.push_back(c);
  return configs;
}

}  // namespace tessel::search::testing
