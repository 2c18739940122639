#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// Data layouts written as strings, as in "NCHW", "NHWC", "NCHW16c" or "OIHW8i16o".
//
// An upper-case letter is a primal axis: a whole logical dimension, named by its letter. Digits
// followed by a lower-case letter are an inner block of the primal axis of the same letter in
// upper case. With a block of size b, the primal axis's position holds the outer index p / b and
// the block's position the inner index p % b: in NCHW16c, element (n, c, h, w) of the logical
// NCHW tensor lies at [n][c / 16][h][w][c % 16]. Each primal axis appears once, at most one block
// per primal axis, and a block's primal axis must appear too (anywhere in the string).
//
// A primal extent need not be a multiple of its block: the blocked shape rounds it up, and the
// padding positions hold zeros when LayoutTransform produces them (what blocked convolutions
// want: zero channels add nothing).
namespace tessel::ops::nn {

struct LayoutAxis {
  char primal = 'N';  // the primal axis's letter, 'A'..'Z'
  int64_t block = 0;  // 0: the primal (outer) axis itself; > 0: its inner block of this size
};

class Layout {
 public:
  Layout() = default;
  Layout(std::string name, std::vector<LayoutAxis> axes)
      : name_(std::move(name)), axes_(std::move(axes)) {}

  const std::string& name() const { return name_; }
  const std::vector<LayoutAxis>& axes() const { return axes_; }
  int ndim() const { return static_cast<int>(axes_.size()); }
  // The primal axes in the order they appear: "NCHW" for "NCHW16c", "OIHW" for "OIHW8i16o".
  std::string primal() const;
  // Position of the primal axis `axis` (upper case), or -1.
  int PrimalPosition(char axis) const;
  // Position of the block of primal axis `axis` (upper case), or -1 when it is not blocked.
  int BlockPosition(char axis) const;
  // Block size of primal axis `axis` (upper case), 0 when it is not blocked.
  int64_t BlockSize(char axis) const;

 private:
  std::string name_;
  std::vector<LayoutAxis> axes_;
};

// Parses a layout string; an error quotes the string and says what is wrong where.
absl::StatusOr<Layout> ParseLayout(const std::string& text);

// The shape, in `layout`, of a tensor whose primal extents are `primal_shape` (one per primal
// axis, in layout.primal() order). A blocked axis's outer extent is ceil(extent / block).
absl::StatusOr<std::vector<int64_t>> BlockedShape(const Layout& layout,
                                                  const std::vector<int64_t>& primal_shape);

// The primal extents (layout.primal() order) a tensor of `shape` in `layout` can hold: a blocked
// axis contributes outer * block.
absl::StatusOr<std::vector<int64_t>> PrimalShape(const Layout& layout,
                                                 const std::vector<int64_t>& shape);

// x, a tensor in layout `src`, as a tensor in layout `dst`. The two layouts have the same primal
// axes, in any order and blocked in any way. `primal_shape` is the logical extent of each primal
// axis, in src.primal() order; empty means PrimalShape(src, shape of x). Elements of the result
// whose primal index lies beyond the logical extent (block padding) are zero. An element-wise
// compute (compute_inline can absorb it); errors name the mismatch.
absl::StatusOr<te::Tensor> LayoutTransform(const te::Tensor& x, const Layout& src,
                                           const Layout& dst,
                                           std::vector<int64_t> primal_shape = {});

// The layout_transform operator's arguments (OPERATORS.md) for an input of `shape`: `src` and
// `dst` as written and parsed, and the input's primal extents (src.primal() order).
struct LayoutTransformArgs {
  std::string src_text, dst_text;
  Layout src, dst;
  std::vector<int64_t> primal;
};
// Reads `src` and `dst` and checks them: both parse, `shape` is a tensor in src, they name the
// same axes, and every block of dst divides its axis's extent (the operator keeps every
// element). Errors name the argument.
absl::StatusOr<LayoutTransformArgs> ReadLayoutTransformArgs(const ArgReader& reader,
                                                            const std::vector<int64_t>& shape);

}  // namespace tessel::ops::nn
