#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tessel {

// Uniform reals in [low, high): the same values std::uniform_real_distribution<T> draws from a
// 32-bit engine (std::mt19937) under libstdc++, draw for draw, at a tenth of the cost in this
// clang build. libstdc++'s generate_canonical takes a long-double logarithm on every draw, which
// GCC folds and clang 15 calls (99 against 10 ns per float draw, measured), so random weights and
// probe inputs were a third of a ResNet-50 compile. Same algorithm ([rand.util.canonical]):
// k = ceil(digits / 32) engine outputs as base-2^32 digits over 2^(32k), below 1, then
// u * (high - low) + low in T.
template <typename T>
class UniformReal {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);

 public:
  UniformReal(T low, T high) : low_(low), high_(high) {}

  template <typename Engine>
  T operator()(Engine& engine) const {
    static_assert(Engine::min() == 0 && Engine::max() == 0xffffffffu, "a 32-bit engine");
    constexpr T kRange = T(4294967296.0);  // 2^32
    T u;
    if constexpr (std::is_same_v<T, float>) {
      u = T(engine()) / kRange;
    } else {
      const T first = T(engine());
      u = (first + T(engine()) * kRange) / (kRange * kRange);
    }
    if (u >= T(1)) u = std::nextafter(T(1), T(0));
    return u * (high_ - low_) + low_;
  }

 private:
  T low_, high_;
};

}  // namespace tessel
