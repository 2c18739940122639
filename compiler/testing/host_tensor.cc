#include "compiler/testing/host_tensor.h"

#include <absl/strings/str_cat.h>

#include <cmath>
#include <cstring>

#include "compiler/support/uniform_real.h"

namespace tessel::testing {

HostTensor::HostTensor(std::vector<int64_t> shape, DLDataType dtype)
    : shape_(std::move(shape)), element_bytes_(dtype.bits / 8) {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  data_.assign(n * element_bytes_, 0);
  dl_.data = data_.data();
  dl_.device = {kDLCPU, 0};
  dl_.ndim = static_cast<int32_t>(shape_.size());
  dl_.dtype = dtype;
  dl_.shape = shape_.data();
  dl_.strides = nullptr;
  dl_.byte_offset = 0;
}

void HostTensor::FillRandom(std::mt19937& rng) {
  if (dl_.dtype.code == kDLFloat) {
    UniformReal<float> u(-1.0f, 1.0f);
    for (int64_t i = 0; i < size(); ++i) f32()[i] = u(rng);
  } else {
    std::uniform_int_distribution<int32_t> u(-8, 7);
    for (int64_t i = 0; i < size(); ++i) i32()[i] = u(rng);
  }
}

void HostTensor::Fill(float value) {
  for (int64_t i = 0; i < size(); ++i) {
    if (dl_.dtype.code == kDLFloat) {
      f32()[i] = value;
    } else {
      i32()[i] = static_cast<int32_t>(value);
    }
  }
}

double HostTensor::at(int64_t i) const {
  if (dl_.dtype.code == kDLFloat) {
    float v;
    std::memcpy(&v, data_.data() + i * 4, 4);
    return v;
  }
  int32_t v;
  std::memcpy(&v, data_.data() + i * 4, 4);
  return v;
}

std::string Compare(const HostTensor& a, const HostTensor& b, double rtol, double atol) {
  if (a.shape() != b.shape()) return "shapes differ";
  for (int64_t i = 0; i < a.size(); ++i) {
    const double x = a.at(i), y = b.at(i);
    if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y))) {
      return absl::StrCat("element ", i, ": ", x, " vs ", y);
    }
  }
  return "";
}

}  // namespace tessel::testing
