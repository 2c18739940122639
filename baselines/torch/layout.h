#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

// layout_transform's layouts (OPERATORS.md): "NCHW", "NCHW16c", "OIHW8i8o", ... An upper-case
// letter is a whole dimension; digits and a lower-case letter are an inner block of the
// dimension of that letter (at most one block per dimension, and its dimension must be there).
// A transform between two layouts of the same dimensions is three reshape/permute rounds, which
// LayoutPlan spells out so that its user (torch, or a naive loop) only moves elements.
namespace tessel::baselines::internal {

struct LayoutPlan {
  // x (src, shape as given) -> permute(to_grouped): each dimension followed by its block, the
  // dimensions in src's order -> reshape(primal): the whole dimensions, src's order ->
  // permute(to_dst_primal): dst's order -> reshape(dst_grouped): each dimension split into
  // (outer, block) when dst blocks it -> permute(to_dst) -> the result, of shape out_shape.
  std::vector<int64_t> to_grouped;
  std::vector<int64_t> primal;
  std::vector<int64_t> to_dst_primal;
  std::vector<int64_t> dst_grouped;
  std::vector<int64_t> to_dst;
  std::vector<int64_t> out_shape;
};

// The plan for x of `shape` in layout `src` to layout `dst`. Errors (prefixed with `what`) name
// the key: a malformed layout ('src' or 'dst'), a shape whose rank or block extents disagree with
// src ('shape'), dst with other dimensions than src or a block that does not divide ('dst').
absl::StatusOr<LayoutPlan> PlanLayoutTransform(const std::string& what,
                                               const std::vector<int64_t>& shape,
                                               const std::string& src, const std::string& dst);

}  // namespace tessel::baselines::internal
