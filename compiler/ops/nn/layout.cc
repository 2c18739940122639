#include "compiler/ops/nn/layout.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cctype>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

absl::Status LayoutError(const std::string& text, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("layout \"", text, "\": ", what));
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace

std::string Layout::primal() const {
  std::string out;
  for (const LayoutAxis& a : axes_) {
    if (a.block == 0) out.push_back(a.primal);
  }
  return out;
}

int Layout::PrimalPosition(char axis) const {
  for (int i = 0; i < ndim(); ++i) {
    if (axes_[i].primal == axis && axes_[i].block == 0) return i;
  }
  return -1;
}

int Layout::BlockPosition(char axis) const {
  for (int i = 0; i < ndim(); ++i) {
    if (axes_[i].primal == axis && axes_[i].block > 0) return i;
  }
  return -1;
}

int64_t Layout::BlockSize(char axis) const {
  const int pos = BlockPosition(axis);
  return pos < 0 ? 0 : axes_[pos].block;
}

absl::StatusOr<Layout> ParseLayout(const std::string& text) {
  if (text.empty()) return LayoutError(text, "empty");
  std::vector<LayoutAxis> axes;
  bool primal_seen[26] = {};
  bool block_seen[26] = {};
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c >= 'A' && c <= 'Z') {
      if (primal_seen[c - 'A']) {
        return LayoutError(text, absl::StrCat("axis ", std::string(1, c), " appears twice"));
      }
      primal_seen[c - 'A'] = true;
      axes.push_back({c, 0});
      ++i;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      if (c >= 'a' && c <= 'z') {
        return LayoutError(text,
                           absl::StrCat("block ", std::string(1, c), " at position ", i,
                                        " has no size (write e.g. 16", std::string(1, c), ")"));
      }
      return LayoutError(
          text, absl::StrCat("unexpected character '", std::string(1, c), "' at position ", i));
    }
    const size_t start = i;
    int64_t size = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (size > (int64_t{1} << 30)) return LayoutError(text, "block size too large");
      size = size * 10 + (text[i] - '0');
      ++i;
    }
    if (i == text.size() || text[i] < 'a' || text[i] > 'z') {
      return LayoutError(text, absl::StrCat("the number at position ", start,
                                            " is not followed by a lower-case axis"));
    }
    const char axis = static_cast<char>(text[i] - 'a' + 'A');
    if (size < 1) {
      return LayoutError(text, absl::StrCat("block ", std::string(1, text[i]), " has size 0"));
    }
    if (block_seen[axis - 'A']) {
      return LayoutError(text, absl::StrCat("axis ", std::string(1, axis), " is blocked twice"));
    }
    block_seen[axis - 'A'] = true;
    axes.push_back({axis, size});
    ++i;
  }
  for (int a = 0; a < 26; ++a) {
    if (block_seen[a] && !primal_seen[a]) {
      return LayoutError(
          text, absl::StrCat("block ", std::string(1, static_cast<char>('a' + a)),
                             " without its axis ", std::string(1, static_cast<char>('A' + a))));
    }
  }
  return Layout(text, std::move(axes));
}

absl::StatusOr<std::vector<int64_t>> BlockedShape(const Layout& layout,
                                                  const std::vector<int64_t>& primal_shape) {
  const std::string primal = layout.primal();
  if (primal_shape.size() != primal.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout \"", layout.name(), "\" has ", primal.size(), " primal axes, the shape ",
        ShapeString(primal_shape), " has ", primal_shape.size()));
  }
  std::vector<int64_t> shape;
  for (const LayoutAxis& a : layout.axes()) {
    const int64_t extent = primal_shape[primal.find(a.primal)];
    if (extent < 1) {
      return absl::InvalidArgumentError(absl::StrCat("layout \"", layout.name(), "\": axis ",
                                                     std::string(1, a.primal), " has extent ",
                                                     extent));
    }
    const int64_t block = layout.BlockSize(a.primal);
    if (a.block > 0) {
      shape.push_back(a.block);
    } else {
      shape.push_back(block > 0 ? (extent + block - 1) / block : extent);
    }
  }
  return shape;
}

absl::StatusOr<std::vector<int64_t>> PrimalShape(const Layout& layout,
                                                 const std::vector<int64_t>& shape) {
  if (static_cast<int>(shape.size()) != layout.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", layout.name(), "\" has ",
                                                   layout.ndim(), " axes, the shape ",
                                                   ShapeString(shape), " has ", shape.size()));
  }
  std::vector<int64_t> out;
  for (int i = 0; i < layout.ndim(); ++i) {
    const LayoutAxis& a = layout.axes()[i];
    if (a.block > 0 && shape[i] != a.block) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout \"", layout.name(), "\": dimension ", i, " is the block ", a.block,
                       std::string(1, static_cast<char>(a.primal - 'A' + 'a')), " but the shape ",
                       ShapeString(shape), " has ", shape[i]));
    }
    if (a.block == 0) {
      const int64_t block = layout.BlockSize(a.primal);
      out.push_back(shape[i] * (block > 0 ? block : 1));
    }
  }
  return out;
}

absl::StatusOr<te::Tensor> LayoutTransform(const te::Tensor& x, const Layout& src,
                                           const Layout& dst, std::vector<int64_t> primal_shape) {
  const std::string primal = src.primal();
  {
    std::string a = primal, b = dst.primal();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layout_transform: \"", src.name(), "\" and \"", dst.name(), "\" have different axes"));
    }
  }
  absl::StatusOr<std::vector<int64_t>> x_shape = ConstShape(x, "layout_transform");
  if (!x_shape.ok()) return x_shape.status();
  if (primal_shape.empty()) {
    absl::StatusOr<std::vector<int64_t>> p = PrimalShape(src, *x_shape);
    if (!p.ok()) return p.status();
    primal_shape = *std::move(p);
  }
  absl::StatusOr<std::vector<int64_t>> want = BlockedShape(src, primal_shape);
  if (!want.ok()) return want.status();
  if (*want != *x_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout_transform: a tensor of primal extents ", ShapeString(primal_shape), " in \"",
        src.name(), "\" has shape ", ShapeString(*want), ", not ", ShapeString(*x_shape)));
  }
  // Primal extents in dst.primal() order.
  const std::string dst_primal = dst.primal();
  std::vector<int64_t> dst_extents;
  for (char p : dst_primal) dst_extents.push_back(primal_shape[primal.find(p)]);
  absl::StatusOr<std::vector<int64_t>> out_shape = BlockedShape(dst, dst_extents);
  if (!out_shape.ok()) return out_shape.status();

  auto fcompute = [&](const std::vector<ir::Var>& v) -> ir::Expr {
    // The primal index of each axis, and whether it can fall into block padding.
    std::vector<ir::Expr> index(primal.size());
    ir::Expr in_bounds;
    for (size_t k = 0; k < primal.size(); ++k) {
      const char p = primal[k];
      const int64_t block = dst.BlockSize(p);
      ir::Expr outer = v[dst.PrimalPosition(p)];
      index[k] =
          block > 0 ? outer * ir::IntImm(ir::kInt32, block) + v[dst.BlockPosition(p)] : outer;
      if (block > 0 && primal_shape[k] % block != 0) {
        ir::Expr c = index[k] < ir::IntImm(ir::kInt32, primal_shape[k]);
        in_bounds = in_bounds.defined() ? (in_bounds && c) : c;
      }
    }
    std::vector<ir::Expr> src_index;
    for (const LayoutAxis& a : src.axes()) {
      const ir::Expr& p = index[primal.find(a.primal)];
      const int64_t block = src.BlockSize(a.primal);
      if (block == 0) {
        src_index.push_back(p);
      } else if (a.block == 0) {
        src_index.push_back(ir::floordiv(p, ir::IntImm(ir::kInt32, block)));
      } else {
        src_index.push_back(ir::floormod(p, ir::IntImm(ir::kInt32, block)));
      }
    }
    if (!in_bounds.defined()) return x(src_index);
    return ir::if_then_else(in_bounds, x(src_index), ir::MakeZero(x.dtype()));
  };
  return te::compute(ShapeExprs(*out_shape), fcompute, "layout_transform");
}

absl::StatusOr<LayoutTransformArgs> ReadLayoutTransformArgs(const ArgReader& reader,
                                                            const std::vector<int64_t>& shape) {
  LayoutTransformArgs out;
  TESSEL_ASSIGN_OR_RETURN(out.src_text, reader.String("src"));
  TESSEL_ASSIGN_OR_RETURN(out.dst_text, reader.String("dst"));
  absl::StatusOr<Layout> src = ParseLayout(out.src_text);
  if (!src.ok()) return reader.ErrorIn("src", src.status());
  absl::StatusOr<Layout> dst = ParseLayout(out.dst_text);
  if (!dst.ok()) return reader.ErrorIn("dst", dst.status());
  absl::StatusOr<std::vector<int64_t>> primal = PrimalShape(*src, shape);
  if (!primal.ok()) return reader.ErrorIn("shape", primal.status());
  std::string a = src->primal(), b = dst->primal();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) {
    return reader.Error(absl::StrCat("argument 'dst' \"", out.dst_text,
                                     "\" must have the axes of 'src' \"", out.src_text, "\""));
  }
  const std::string order = src->primal();
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t block = dst->BlockSize(order[k]);
    if (block > 0 && (*primal)[k] % block != 0) {
      return reader.Error(absl::StrCat("argument 'dst': block ", block, " of axis ",
                                       std::string(1, order[k]), " does not divide its extent ",
                                       (*primal)[k]));
    }
  }
  out.src = *std::move(src);
  out.dst = *std::move(dst);
  out.primal = *std::move(primal);
  return out;
}

}  // namespace tessel::ops::nn
