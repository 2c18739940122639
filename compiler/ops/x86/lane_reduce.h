#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/nn/reduce.h"
#include "compiler/schedule/schedule.h"

// Vectorizable reductions along a contiguous axis. A reduction over k is a loop-carried chain,
// which the vectorizer (data-parallel loops only) cannot touch and LLVM does not reassociate in
// strict floating point. Written instead as L independent chains, one per vector lane,
//   partial[row..., l] = R over o in [0, ceil(K / L)) of f(row..., o * L + l)   where o*L+l < K
//   result[row...]     = R over l in [0, L) of partial[row..., l]
// the first stage is a vector accumulation (l vectorized; loop partitioning splits the guarded
// last block off, so the bulk has no guard), the second a short scalar reduction per row. The
// lanes' results are combined in another order than a sequential sum: sums round differently
// (not more), max and min are exact.
namespace tessel::ops::x86 {

using LaneReducer = nn::ReduceCombine;  // how the chains combine: sum, max, min or product

struct LaneReduction {
  te::Tensor partial;  // rows..., L
  te::Tensor result;   // rows...
};

// f(row, k) is the element k of row `row` (one index per entry of rows).
using RowElement = std::function<ir::Expr(const std::vector<ir::Expr>& row, const ir::Expr& k)>;

// The two stages above for rows of shape `rows` (may be empty: one row), K elements a row, L
// lanes (>= 1; L > K wastes lanes but is correct).
LaneReduction LaneReduce(const std::vector<int64_t>& rows, int64_t k, int64_t lanes,
                         LaneReducer reducer, const RowElement& f, const std::string& name);

// Schedules the partial stage inside result's loop `scope` (its innermost data-parallel loop,
// after any fuse; undefined: its last axis as declared), o outside the vectorized lanes. The
// caller schedules result's own loops (compute_at, fuse, parallel) first.
absl::Status ScheduleLaneReduction(schedule::Schedule& s, const LaneReduction& r,
                                   const ir::IterVar& scope = ir::IterVar());

}  // namespace tessel::ops::x86
