#include "search/space/draws.h"

#include <limits>

#include "compiler/support/check.h"

namespace tessel::search {

uint64_t DrawBelow(std::mt19937_64& rng, uint64_t n) {
  TESSEL_CHECK(n >= 1) << "DrawBelow(0)";
  // Only draws below a multiple of n are kept, so every residue is equally likely.
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  static_assert(std::mt19937_64::min() == 0 && std::mt19937_64::max() == kMax);
  const uint64_t limit = kMax - kMax % n;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

double DrawUnit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace tessel::search
