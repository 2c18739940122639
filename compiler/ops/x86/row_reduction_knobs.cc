#include "compiler/ops/x86/row_reduction_knobs.h"

#include <algorithm>

#include "compiler/support/check.h"

namespace tessel::ops::x86 {
namespace {

int64_t Lanes(const target::TargetFacts& facts) { return std::max(facts.lanes(), 4); }

}  // namespace

void DefineRowReductionKnobs(search::ConfigSpace& space, int64_t inner,
                             const target::TargetFacts& facts) {
  const int64_t lanes = Lanes(facts);
  space.define_knob("vec", {lanes, 2 * lanes});
  if (inner == 1) {
    space.define_knob("lanes", {lanes, 2 * lanes, 4 * lanes});
  } else {
    space.define_knob("lanes", {lanes});
  }
  space.define_knob("parallel", {0, 1});
}

search::Config RowReductionFallback(const search::ConfigSpace& space, int64_t outer, int64_t k,
                                    int64_t inner, int64_t parallel_elements,
                                    const target::TargetFacts& facts) {
  const int64_t lanes = Lanes(facts);
  const bool parallel = outer > 1 && outer * k * inner >= parallel_elements;
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs",
                       {{"vec", lanes},
                        {"lanes", inner == 1 && k >= 4 * lanes ? 2 * lanes : lanes},
                        {"parallel", parallel ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

}  // namespace tessel::ops::x86
