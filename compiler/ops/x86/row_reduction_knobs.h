#pragma once

#include <cstdint>

#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// The knobs of the x86 templates that reduce rows of K elements, seen as [outer, K, inner]
// (softmax, log_softmax, the reductions):
//   vec       elements per vector: one or two registers;
//   lanes     inner == 1 (a lane reduction along the row): one, two or four registers of
//             independent chains; inner > 1: one value, unused (vectors run along inner);
//   parallel  rows in parallel (0 or 1).
namespace tessel::ops::x86 {

void DefineRowReductionKnobs(search::ConfigSpace& space, int64_t inner,
                             const target::TargetFacts& facts);

// One register per vector; two of chains for rows of at least four vectors; rows in parallel
// when there are several and at least `parallel_elements` elements in all.
search::Config RowReductionFallback(const search::ConfigSpace& space, int64_t outer, int64_t k,
                                    int64_t inner, int64_t parallel_elements,
                                    const target::TargetFacts& facts);

}  // namespace tessel::ops::x86
