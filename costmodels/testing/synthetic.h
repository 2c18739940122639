#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "costmodels/cost_model.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// A synthetic tuning problem for model tests: a space of choice knobs and a known throughput with a
// unique optimum, so a test can ask whether a model ranks the optimum near the top.
namespace tessel::costmodels::testing {

// A task no template serves: models reach it only through a fake extractor (fake_features.h).
inline search::Task SyntheticTask(const std::string& name = "synthetic") {
  return search::Task{name, {{"n", 1}}, target::Target::Llvm()};
}

// knobs choice knobs "k0", "k1", ..., each with the values 0 .. values - 1.
inline search::ConfigSpace SyntheticSpace(int knobs = 3, int values = 10) {
  search::ConfigSpace space;
  std::vector<int64_t> v(values);
  for (int i = 0; i < values; ++i) v[i] = i;
  for (int k = 0; k < knobs; ++k) space.define_knob("k" + std::to_string(k), v);
  return space;
}

// scale / (1 + q(d)) with d the distance of the value indices from `optimum` and q a positive
// definite quadratic form with a coupling of knobs 0 and 1: largest (scale) exactly at the
// optimum, and not separable, so a model has to learn an interaction.
inline double SyntheticThroughput(const search::Config& config, const std::vector<int64_t>& optimum,
                                  double scale = 100) {
  const std::vector<int64_t>& v = config.value_indices();
  double q = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double d = static_cast<double>(v[i] - optimum[i]);
    q += (1 + static_cast<double>(i)) * d * d;
  }
  if (v.size() >= 2) q += static_cast<double>((v[0] - optimum[0]) * (v[1] - optimum[1]));
  return scale / (1 + 0.25 * q);
}

// Every point of the space, by index.
inline std::vector<search::Config> AllConfigs(const search::ConfigSpace& space) {
  std::vector<search::Config> all;
  for (int64_t i = 0; i < space.size(); ++i) all.push_back(*space.Get(i));
  return all;
}

// n distinct random points of the space as samples of task, drawn with rng.
inline std::vector<Sample> RandomSamples(const search::Task& task, const search::ConfigSpace& space,
                                         int n, const std::vector<int64_t>& optimum, double scale,
                                         std::mt19937_64& rng) {
  std::vector<Sample> samples;
  for (const search::Config& c : space.SampleUnique(n, rng)) {
    samples.push_back(Sample{task, c, SyntheticThroughput(c, optimum, scale)});
  }
  return samples;
}

}  // namespace tessel::costmodels::testing
