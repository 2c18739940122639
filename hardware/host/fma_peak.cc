#include "hardware/host/fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tessel::hardware {
namespace {

constexpr double kFmaLatencyCycles = 4;
volatile float sink_keeper;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Dependent scalar FMAs: one per kFmaLatencyCycles.
__attribute__((target("fma"))) double ChainSeconds(long iterations, float* sink) {
  __m128 x = _mm_set_ss(1.0f);
  const __m128 a = _mm_set_ss(0.999999f);
  const __m128 b = _mm_set_ss(1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) {
    // Eight per iteration so that loop overhead hides under the chain.
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
    x = _mm_fmadd_ss(x, a, b);
  }
  const double s = Seconds(start);
  *sink += _mm_cvtss_f32(x);
  return s;
}

// Twelve independent chains of FMAs, in named registers (an array would live in memory): enough
// in flight to fill two pipes of latency 4.
#define TESSEL_TWELVE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512f"))) double Throughput512Seconds(long iterations, float* sink) {
#define TESSEL_INIT(i) __m512 acc##i = _mm512_set1_ps(static_cast<float>(i));
  TESSEL_TWELVE(TESSEL_INIT)
#undef TESSEL_INIT
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) {
#define TESSEL_STEP(i) acc##i = _mm512_fmadd_ps(acc##i, a, b);
    TESSEL_TWELVE(TESSEL_STEP)
#undef TESSEL_STEP
  }
  const double s = Seconds(start);
  alignas(64) float lanes[16];
#define TESSEL_SUM(i)             \
  _mm512_store_ps(lanes, acc##i); \
  for (float v : lanes) *sink += v;
  TESSEL_TWELVE(TESSEL_SUM)
#undef TESSEL_SUM
  return s;
}

__attribute__((target("avx2,fma"))) double Throughput256Seconds(long iterations, float* sink) {
#define TESSEL_INIT(i) __m256 acc##i = _mm256_set1_ps(static_cast<float>(i));
  TESSEL_TWELVE(TESSEL_INIT)
#undef TESSEL_INIT
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) {
#define TESSEL_STEP(i) acc##i = _mm256_fmadd_ps(acc##i, a, b);
    TESSEL_TWELVE(TESSEL_STEP)
#undef TESSEL_STEP
  }
  const double s = Seconds(start);
  alignas(32) float lanes[8];
#define TESSEL_SUM(i)             \
  _mm256_store_ps(lanes, acc##i); \
  for (float v : lanes) *sink += v;
  TESSEL_TWELVE(TESSEL_SUM)
#undef TESSEL_SUM
  return s;
}
#undef TESSEL_TWELVE

// The fastest of a few runs: interference only ever slows a run down.
template <class F>
double Best(F run) {
  double best = INFINITY;
  for (int i = 0; i < 5; ++i) best = std::min(best, run());
  return best;
}

}  // namespace

FmaPeak MeasureFmaPeak() {
  float sink = 0;
  constexpr long kChain = 2'000'000;       // x 8 FMAs
  constexpr long kThroughput = 1'000'000;  // x 12 vector FMAs
  FmaPeak peak;
  const double chain = Best([&] { return ChainSeconds(kChain, &sink); });
  peak.ghz = kChain * 8 * kFmaLatencyCycles / chain / 1e9;
  const bool avx512 = __builtin_cpu_supports("avx512f");
  peak.vector_bits = avx512 ? 512 : 256;
  const double seconds = Best([&] {
    return avx512 ? Throughput512Seconds(kThroughput, &sink)
                  : Throughput256Seconds(kThroughput, &sink);
  });
  const double lanes_per_second = kThroughput * 12.0 * (peak.vector_bits / 32) / seconds;
  peak.lanes = lanes_per_second / (peak.ghz * 1e9);
  sink_keeper = sink;  // the loops' results stay observable
  return peak;
}

}  // namespace tessel::hardware
