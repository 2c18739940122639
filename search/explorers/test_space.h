#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "search/space/config_space.h"

// A synthetic space for explorer tests: four choice knobs of 12 values each (20736 points), a
// filter rejecting points whose knobs 0 and 1 take the same value index (1728 points), and an
// objective with one optimum (value indices kOptimum) that decays with the L1 distance to it, so a
// one-knob move towards the optimum always improves it.
namespace tessel::search::testing {

inline constexpr int kKnobs = 4;
inline constexpr int kValues = 12;
inline constexpr int64_t kSpaceSize = 20736;
inline constexpr int64_t kValidPoints = kSpaceSize - kSpaceSize / kValues;
inline const std::vector<int64_t> kOptimum = {7, 2, 10, 5};

inline ConfigSpace MakeTestSpace() {
  ConfigSpace space;
  for (int k = 0; k < kKnobs; ++k) {
    std::vector<int64_t> values;
    for (int v = 0; v < kValues; ++v) values.push_back(3 * v + 1);
    space.define_knob("k" + std::to_string(k), values);
  }
  space.AddFilter("distinct_01",
                  [](const Config& c) { return c.value_indices()[0] != c.value_indices()[1]; });
  return space;
}

inline bool Valid(const Config& c) { return c.value_indices()[0] != c.value_indices()[1]; }

// In (0, 1]; 1 exactly at the optimum.
inline double Objective(const Config& c) {
  int64_t distance = 0;
  for (int k = 0; k < kKnobs; ++k) distance += std::abs(c.value_indices()[k] - kOptimum[k]);
  return std::exp(-0.4 * static_cast<double>(distance));
}

inline bool IsOptimum(const Config& c) { return c.value_indices() == kOptimum; }

}  // namespace tessel::search::testing
