#include "compiler/support/uniform_real.h"

#include <gtest/gtest.h>

#include <random>

namespace tessel {
namespace {

// Bit for bit the draws of std::uniform_real_distribution, from the same engine state.
template <typename T>
void ExpectSameDraws(T low, T high, uint32_t seed) {
  std::mt19937 ours_rng(seed), std_rng(seed);
  UniformReal<T> ours(low, high);
  std::uniform_real_distribution<T> reference(low, high);
  for (int i = 0; i < 200000; ++i) {
    const T a = ours(ours_rng), b = reference(std_rng);
    ASSERT_EQ(a, b) << "draw " << i << " of [" << low << ", " << high << ") seed " << seed;
    ASSERT_GE(a, low);
    ASSERT_LT(a, high);
  }
}

TEST(UniformRealTest, FloatDrawsEqualTheStandardDistributions) {
  ExpectSameDraws<float>(-1.0f, 1.0f, 7);
  ExpectSameDraws<float>(0.0f, 1.0f, 123);
  ExpectSameDraws<float>(-3.5f, 100.25f, 5489);
}

TEST(UniformRealTest, DoubleDrawsEqualTheStandardDistributions) {
  ExpectSameDraws<double>(-1.0, 1.0, 7);
  ExpectSameDraws<double>(-4.0, 4.0, 99);
}

}  // namespace
}  // namespace tessel
