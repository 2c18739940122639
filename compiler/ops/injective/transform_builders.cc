// The data-movement operators as injective computes: concatenate, reshape, flatten, transpose,
// pad and layout_transform. Each output's max_inner_axes is limited to the trailing axes along
// which every input is read contiguously. Flops: 0 (they only move data; GB/s is their measure).
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <optional>

#include "compiler/ir/dl_type.h"
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/layout.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/ops/nn/transform_args.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::injective {
namespace {

te::Tensor Placeholder(const std::vector<int64_t>& shape, const std::string& name,
                       ir::DataType dtype = ir::kFloat32) {
  return te::placeholder(nn::ShapeExprs(shape), dtype, name);
}

// One input x of `shape`, the output f(x).
InjectiveOp Unary(const te::Tensor& x, const std::vector<int64_t>& shape, te::Tensor out,
                  int max_inner_axes) {
  InjectiveOp op;
  op.inputs = {x};
  op.output = std::move(out);
  op.logical_inputs = {{"x", shape}};
  op.max_inner_axes = std::max(max_inner_axes, 1);
  op.flops_per_element = 0;
  return op;
}

// reshape and flatten: both tensors are contiguous, so the program is a copy of one row of all
// the elements (prepare and finish reshape).
InjectiveOp FlatCopy(const std::vector<int64_t>& shape, const std::vector<int64_t>& out_shape,
                     ir::DataType dtype = ir::kFloat32) {
  const std::vector<int64_t> flat = {nn::NumElements(shape)};
  te::Tensor x = Placeholder(flat, "x", dtype);
  absl::StatusOr<te::Tensor> copy = nn::Reshape(x, flat);
  TESSEL_CHECK(copy.ok()) << copy.status().message();
  InjectiveOp op = Unary(x, shape, *copy, 1);
  op.logical_inputs[0].dtype = ir::ToDLType(dtype);
  op.logical_output_shape = out_shape;
  op.prepare = ReshapeArrays({flat});
  op.finish = ReshapeArrays({out_shape});
  return op;
}

// The channel block of "NCHW" (1) or "NCHW<b>c" (b), or 0 for any other layout.
int64_t ChannelBlock(const std::string& layout) {
  if (layout == "NCHW") return 1;
  int64_t b = 0;
  if (layout.size() > 5 && layout.rfind("NCHW", 0) == 0 && layout.back() == 'c' &&
      absl::SimpleAtoi(layout.substr(4, layout.size() - 5), &b) && b > 0) {
    return b;
  }
  return 0;
}

// Between channel blocks a and b of which one divides the other (NCHW is block 1), the
// transform is a transpose of views: with a = r * b, [n, c / a, h, w, r, b] to
// [n, c / a, r, h, w, b]; with b = r * a, [n, c / b, r, h, w, a] to [n, c / b, h, w, r, a]. The
// min(a, b) innermost elements stay contiguous on both sides, so blocked-to-blocked transforms
// are vector copies (the general compute indexes through divisions the simplifier cannot undo).
// nullopt: not such a pair.
std::optional<InjectiveOp> ChannelReblock(const std::vector<int64_t>& shape,
                                          const std::vector<int64_t>& primal,
                                          const std::string& src, const std::string& dst) {
  const int64_t a = ChannelBlock(src), b = ChannelBlock(dst);
  if (a == 0 || b == 0 || a == b || primal.size() != 4 || (a % b != 0 && b % a != 0)) {
    return std::nullopt;
  }
  const int64_t n = primal[0], c = primal[1], h = primal[2], w = primal[3];
  const int64_t outer = c / std::max(a, b), r = std::max(a, b) / std::min(a, b);
  const int64_t inner = std::min(a, b);
  std::vector<int64_t> view = a > b ? std::vector<int64_t>{n, outer, h, w, r, inner}
                                    : std::vector<int64_t>{n, outer, r, h, w, inner};
  std::vector<int64_t> axes =
      a > b ? std::vector<int64_t>{0, 1, 4, 2, 3, 5} : std::vector<int64_t>{0, 1, 3, 4, 2, 5};
  if (inner == 1) {  // NCHW on one side: no innermost block
    view.pop_back();
    axes.pop_back();
  }
  te::Tensor x = Placeholder(view, "x");
  absl::StatusOr<te::Tensor> out = nn::Transpose(x, axes);
  TESSEL_CHECK(out.ok()) << out.status().message();
  InjectiveOp op = Unary(x, shape, *out, 1);
  op.logical_output_shape =
      b == 1 ? std::vector<int64_t>{n, c, h, w} : std::vector<int64_t>{n, c / b, h, w, b};
  op.prepare = ReshapeArrays({view});
  op.finish = ReshapeArrays({op.logical_output_shape});
  return op;
}

}  // namespace

absl::StatusOr<InjectiveOp> BuildConcatenate(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(nn::ConcatenateArgs a, nn::ReadConcatenateArgs(reader, args));
  const std::vector<std::vector<int64_t>>& shapes = a.shapes;
  const int64_t axis = a.axis;
  std::vector<te::Tensor> logical;
  for (const std::vector<int64_t>& shape : shapes) logical.push_back(Placeholder(shape, "x"));
  absl::StatusOr<te::Tensor> joined = nn::Concatenate(logical, axis);
  if (!joined.ok()) return reader.ErrorIn("shapes", joined.status());
  // The program joins views [before, extent, after] (the axes before and after the joined one
  // merged, dropped when of extent 1) along the middle axis: rows of `after` elements are read
  // contiguously from whichever input holds them.
  const int64_t before = nn::NumElements({shapes[0].begin(), shapes[0].begin() + axis});
  const int64_t after = nn::NumElements({shapes[0].begin() + axis + 1, shapes[0].end()});
  auto view = [&](int64_t extent) {
    std::vector<int64_t> v;
    if (before > 1) v.push_back(before);
    v.push_back(extent);
    if (after > 1) v.push_back(after);
    return v;
  };
  InjectiveOp op;
  std::vector<std::vector<int64_t>> views;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::string x = absl::StrCat("x", k);
    views.push_back(view(shapes[k][axis]));
    op.inputs.push_back(Placeholder(views.back(), x));
    op.logical_inputs.push_back({x, shapes[k]});
  }
  TESSEL_ASSIGN_OR_RETURN(op.output, nn::Concatenate(op.inputs, before > 1 ? 1 : 0));
  TESSEL_ASSIGN_OR_RETURN(op.logical_output_shape, nn::ConstShape(*joined, name));
  op.prepare = ReshapeArrays(views);
  op.finish = ReshapeArrays({op.logical_output_shape});
  op.flops_per_element = 0;
  return op;
}

absl::StatusOr<InjectiveOp> BuildReshape(const std::string& name, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::ReshapeArgs a, nn::ReadReshapeArgs(ArgReader(name, args)));
  return FlatCopy(a.shape, a.out_shape, a.dtype);
}

absl::StatusOr<InjectiveOp> BuildFlatten(const std::string& name, const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::FlattenArgs a, nn::ReadFlattenArgs(ArgReader(name, args)));
  return FlatCopy(a.shape, a.out_shape);
}

absl::StatusOr<InjectiveOp> BuildTranspose(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(nn::TransposeArgs a, nn::ReadTransposeArgs(reader));
  te::Tensor x = Placeholder(a.shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Transpose(x, a.axes);
  if (!out.ok()) return reader.ErrorIn("axes", out.status());
  // Trailing axes the permutation keeps in place are contiguous in both tensors.
  const int64_t rank = static_cast<int64_t>(a.shape.size());
  int kept = 0;
  while (kept < rank && (a.axes[rank - 1 - kept] + rank) % rank == rank - 1 - kept) ++kept;
  return Unary(x, a.shape, *out, kept);
}

absl::StatusOr<InjectiveOp> BuildPad(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(nn::PadArgs a, nn::ReadPadArgs(reader));
  te::Tensor x = Placeholder(a.shape, "x");
  absl::StatusOr<te::Tensor> out = nn::Pad(x, a.before, a.after, a.value, a.mode);
  if (!out.ok()) return reader.ErrorIn("pad_before", out.status());
  // Trailing unpadded axes are contiguous in both tensors, and the padding test of the others is
  // the same for the whole inner loop.
  const int rank = static_cast<int>(a.shape.size());
  int unpadded = 0;
  while (unpadded < rank && a.before[rank - 1 - unpadded] == 0 &&
         a.after[rank - 1 - unpadded] == 0) {
    ++unpadded;
  }
  return Unary(x, a.shape, *out, unpadded);
}

absl::StatusOr<InjectiveOp> BuildLayoutTransform(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, reader.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(nn::LayoutTransformArgs a, nn::ReadLayoutTransformArgs(reader, shape));
  if (std::optional<InjectiveOp> op = ChannelReblock(shape, a.primal, a.src_text, a.dst_text)) {
    return *std::move(op);
  }
  te::Tensor x = Placeholder(shape, "x");
  absl::StatusOr<te::Tensor> out = nn::LayoutTransform(x, a.src, a.dst);
  if (!out.ok()) return reader.ErrorIn("dst", out.status());
  return Unary(x, shape, *out, 1);
}

}  // namespace tessel::ops::injective
