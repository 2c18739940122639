#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "baselines/torch/reference.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/ndarray.h"

// Small helpers for the reference tests: arrays from values, seeded random arrays, and the
// values back, so each test can compare with its own naive loops.
namespace tessel::baselines::testing {

inline constexpr DLDataType kF32{kDLFloat, 32, 1};

inline runtime::NDArray Array(std::vector<int64_t> shape, const std::vector<float>& values) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kF32);
  EXPECT_EQ(a.NumElements(), static_cast<int64_t>(values.size()));
  std::copy(values.begin(), values.end(), a.data<float>());
  return a;
}

inline runtime::NDArray Random(std::vector<int64_t> shape, uint32_t seed, float low = -1,
                               float high = 1) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = uniform(rng);
  return a;
}

inline runtime::NDArray RandomBits(std::vector<int64_t> shape, uint32_t seed, int bits) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), {kDLUInt, 8, 1});
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> uniform(0, (1 << bits) - 1);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<uint8_t>()[i] = uniform(rng);
  return a;
}

inline std::vector<float> Values(const runtime::NDArray& a) {
  const float* p = a.data<float>();
  return std::vector<float>(p, p + a.NumElements());
}

// The single output of op, or a failed test.
inline runtime::NDArray RunOne(const std::string& op, const ops::OpArgs& args,
                               const std::vector<runtime::NDArray>& inputs) {
  absl::StatusOr<std::vector<runtime::NDArray>> out = TorchReference(op, args, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return runtime::NDArray::Empty({0}, kF32);
  EXPECT_EQ(out->size(), 1u);
  return out->at(0);
}

inline void ExpectValuesNear(const runtime::NDArray& got, std::vector<int64_t> shape,
                             const std::vector<float>& want, float tolerance = 1e-4f) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_TRUE(runtime::SameDLType(got.dtype(), kF32));
  const std::vector<float> values = Values(got);
  ASSERT_EQ(values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(values[i], want[i], tolerance * (1 + std::abs(want[i]))) << "at " << i;
  }
}

}  // namespace tessel::baselines::testing
