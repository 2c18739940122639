#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/ir/stmt.h"

// Index expressions of a loop nest as affine maps of its loops: what the DMA (a 2-D strided copy)
// and the ALU (micro-ops over entries) take from a copy or element-wise nest.
namespace tessel::codegen::vdla {

struct AffineDim {
  int64_t extent = 1;
  std::vector<int64_t> steps;        // one per expression
  const ir::VarNode* var = nullptr;  // the loop's, unless several loops were merged into this
};

// Each expression's value with every loop at 0, and the loops innermost first: loops of extent
// 1 dropped, neighbours merged (unless asked not to) where every expression continues
// contiguously (the outer loop's step is the inner's times its extent).
struct AffineNest {
  std::vector<int64_t> base;
  std::vector<AffineDim> dims;
};

// The values of expressions under the caller's loop variables; `bind` sets a loop variable's
// value (or unbinds it: nullopt).
struct NestEvaluator {
  std::function<absl::StatusOr<int64_t>(const ir::Expr&)> eval;
  std::function<void(const ir::VarNode*, std::optional<int64_t>)> bind;
};

// InvalidArgument naming the loop: a loop that does not start at 0, an expression not affine in
// a loop (its value at the loop's last iteration off the line through the first two); the
// evaluator's errors. The loops are unbound again on return.
absl::StatusOr<AffineNest> AnalyseNest(const std::vector<const ir::ForNode*>& loops,
                                       const std::vector<ir::Expr>& exprs,
                                       const NestEvaluator& evaluator, bool merge = true);

// The nest in entries of `elements` elements: the innermost loop must move every expression
// through whole entries in order (step 1, extent a multiple of `elements`, every base on an
// entry) and every other step must be whole entries. The innermost becomes a loop over entries
// (step 1). InvalidArgument saying which condition fails.
absl::StatusOr<AffineNest> InEntries(const AffineNest& nest, int64_t elements);

// Steps `at` (one counter per dim, innermost first) to the next iteration of `dims`; false
// after the last one, with `at` back at zeros.
bool NextIteration(const std::vector<AffineDim>& dims, std::vector<int64_t>& at);

}  // namespace tessel::codegen::vdla
