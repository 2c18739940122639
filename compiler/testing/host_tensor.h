#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/support/aligned_allocator.h"

// Host tensors for tests: owned float32 or int32 data (64-byte aligned) viewed as a DLTensor,
// random filling, and comparison with a named first mismatch.
namespace tessel::testing {

class HostTensor {
 public:
  HostTensor(std::vector<int64_t> shape, DLDataType dtype = {kDLFloat, 32, 1});
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  // Uniform values in [-1, 1) (floats) or [-8, 8) (integers), from a seeded generator.
  void FillRandom(std::mt19937& rng);
  void Fill(float value);

  DLTensor* dl() { return &dl_; }
  int64_t size() const { return static_cast<int64_t>(data_.size()) / element_bytes_; }
  float* f32() { return reinterpret_cast<float*>(data_.data()); }
  int32_t* i32() { return reinterpret_cast<int32_t*>(data_.data()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  // The value at a flat index as a double.
  double at(int64_t i) const;

 private:
  std::vector<int64_t> shape_;
  int element_bytes_;
  std::vector<uint8_t, AlignedAllocator<uint8_t>> data_;
  DLTensor dl_;
};

// "" when every element of a is within atol + rtol * |b| of b, else the first mismatch.
std::string Compare(const HostTensor& a, const HostTensor& b, double rtol = 1e-5,
                    double atol = 1e-5);

}  // namespace tessel::testing
