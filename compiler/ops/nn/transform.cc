#include "compiler/ops/nn/transform.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

using ir::Expr;

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

Expr I32(int64_t v) { return ir::IntImm(ir::kInt32, v); }

std::vector<Expr> AsExprs(const std::vector<ir::Var>& i) {
  return std::vector<Expr>(i.begin(), i.end());
}

}  // namespace

absl::StatusOr<te::Tensor> Concatenate(const std::vector<te::Tensor>& inputs, int64_t axis) {
  if (inputs.empty()) return absl::InvalidArgumentError("concatenate: no inputs");
  std::vector<std::vector<int64_t>> shapes;
  for (const te::Tensor& t : inputs) {
    absl::StatusOr<std::vector<int64_t>> s = ConstShape(t, "concatenate");
    if (!s.ok()) return s.status();
    shapes.push_back(*std::move(s));
  }
  const int rank = static_cast<int>(shapes[0].size());
  absl::StatusOr<int> a = NormalizeAxis(axis, rank, "concatenate axis");
  if (!a.ok()) return a.status();
  std::vector<int64_t> offsets = {0};  // start of each input along the axis, then the total
  for (size_t k = 0; k < inputs.size(); ++k) {
    bool same = shapes[k].size() == shapes[0].size() && inputs[k].dtype() == inputs[0].dtype();
    for (int d = 0; same && d < rank; ++d) same = d == *a || shapes[k][d] == shapes[0][d];
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concatenate: input ", k, " of shape ", ShapeString(shapes[k]),
          " does not match input 0 of shape ", ShapeString(shapes[0]), " outside axis ", *a));
    }
    offsets.push_back(offsets.back() + shapes[k][*a]);
  }
  std::vector<int64_t> out_shape = shapes[0];
  out_shape[*a] = offsets.back();
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<ir::Var>& i) {
        // The last input, unless the index falls before its start: then the one before, ...
        auto read = [&](size_t k) {
          std::vector<Expr> idx = AsExprs(i);
          idx[*a] = idx[*a] - I32(offsets[k]);
          return inputs[k](idx);
        };
        Expr value = read(inputs.size() - 1);
        for (size_t k = inputs.size() - 1; k-- > 0;) {
          value = ir::if_then_else(i[*a] < I32(offsets[k + 1]), read(k), value);
        }
        return value;
      },
      "concatenate");
}

absl::StatusOr<std::vector<int64_t>> ReshapeShape(const std::vector<int64_t>& shape,
                                                  const std::vector<int64_t>& newshape) {
  int inferred = -1;
  int64_t known = 1;
  for (size_t d = 0; d < newshape.size(); ++d) {
    if (newshape[d] == -1 && inferred < 0) {
      inferred = static_cast<int>(d);
    } else if (newshape[d] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("reshape: newshape ", ShapeString(newshape),
                                                     " has entry ", newshape[d], " at ", d,
                                                     " (entries are >= 1, one may be -1)"));
    } else {
      known *= newshape[d];
    }
  }
  const int64_t total = NumElements(shape);
  std::vector<int64_t> out = newshape;
  if (inferred >= 0) {
    if (total % known != 0) {
      return absl::InvalidArgumentError(absl::StrCat("reshape: ", total, " elements of ",
                                                     ShapeString(shape), " cannot take newshape ",
                                                     ShapeString(newshape)));
    }
    out[inferred] = total / known;
  }
  if (NumElements(out) != total) {
    return absl::InvalidArgumentError(absl::StrCat("reshape: newshape ", ShapeString(newshape),
                                                   " does not hold the ", total, " elements of ",
                                                   ShapeString(shape)));
  }
  return out;
}

absl::StatusOr<te::Tensor> Reshape(const te::Tensor& x, const std::vector<int64_t>& newshape) {
  absl::StatusOr<std::vector<int64_t>> in = ConstShape(x, "reshape");
  if (!in.ok()) return in.status();
  absl::StatusOr<std::vector<int64_t>> out = ReshapeShape(*in, newshape);
  if (!out.ok()) return out.status();
  // Trailing dimensions the two shapes share keep their indices; only the leading ones go
  // through a flat index, which keeps the index arithmetic simple to vectorize.
  size_t common = 0;
  while (common < in->size() && common < out->size() &&
         (*in)[in->size() - 1 - common] == (*out)[out->size() - 1 - common]) {
    ++common;
  }
  const size_t in_lead = in->size() - common, out_lead = out->size() - common;
  return te::compute(
      ShapeExprs(*out),
      [&](const std::vector<ir::Var>& i) {
        Expr flat = I32(0);
        for (size_t d = 0; d < out_lead; ++d) flat = flat * I32((*out)[d]) + i[d];
        std::vector<Expr> idx(in->size());
        for (size_t d = in_lead; d-- > 0;) {
          idx[d] = d == 0 ? flat : ir::floormod(flat, I32((*in)[d]));
          if (d > 0) flat = ir::floordiv(flat, I32((*in)[d]));
        }
        for (size_t c = 0; c < common; ++c) idx[in_lead + c] = i[out_lead + c];
        return x(idx);
      },
      "reshape");
}

absl::StatusOr<te::Tensor> Flatten(const te::Tensor& x, int64_t axis) {
  absl::StatusOr<std::vector<int64_t>> in = ConstShape(x, "flatten");
  if (!in.ok()) return in.status();
  const int64_t rank = static_cast<int64_t>(in->size());
  if (axis < -rank || axis > rank) {
    return absl::InvalidArgumentError(absl::StrCat("flatten: axis ", axis, " is outside [", -rank,
                                                   ", ", rank, "] for a tensor of rank ", rank));
  }
  if (axis < 0) axis += rank;
  const std::vector<int64_t> lead(in->begin(), in->begin() + axis);
  const std::vector<int64_t> rest(in->begin() + axis, in->end());
  return Reshape(x, {NumElements(lead), NumElements(rest)});
}

absl::StatusOr<te::Tensor> Transpose(const te::Tensor& x, std::vector<int64_t> axes) {
  absl::StatusOr<std::vector<int64_t>> in = ConstShape(x, "transpose");
  if (!in.ok()) return in.status();
  const int rank = static_cast<int>(in->size());
  if (axes.empty()) {
    for (int d = rank - 1; d >= 0; --d) axes.push_back(d);
  }
  if (static_cast<int>(axes.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("transpose: axes ", ShapeString(axes), " has ",
                                                   axes.size(), " entries for rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> out_shape;
  for (int64_t& a : axes) {
    absl::StatusOr<int> n = NormalizeAxis(a, rank, "transpose axes entry");
    if (!n.ok()) return n.status();
    if (seen[*n]) {
      return absl::InvalidArgumentError(
          absl::StrCat("transpose: axes ", ShapeString(axes), " repeats dimension ", *n));
    }
    seen[*n] = true;
    a = *n;
    out_shape.push_back((*in)[*n]);
  }
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx(rank);
        for (int d = 0; d < rank; ++d) idx[axes[d]] = i[d];
        return x(idx);
      },
      "transpose");
}

absl::StatusOr<te::Tensor> Pad(const te::Tensor& x, const std::vector<int64_t>& pad_before,
                               const std::vector<int64_t>& pad_after, double value, PadMode mode) {
  absl::StatusOr<std::vector<int64_t>> in = ConstShape(x, "pad");
  if (!in.ok()) return in.status();
  const size_t rank = in->size();
  if (pad_before.size() != rank || pad_after.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pad: pad_before ", ShapeString(pad_before), " and pad_after ", ShapeString(pad_after),
        " need one entry per dimension of ", ShapeString(*in)));
  }
  std::vector<int64_t> out_shape;
  for (size_t d = 0; d < rank; ++d) {
    if (pad_before[d] < 0 || pad_after[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("pad: pad_before ", ShapeString(pad_before),
                                                     " and pad_after ", ShapeString(pad_after),
                                                     " must be >= 0"));
    }
    if (mode == PadMode::kReflect && std::max(pad_before[d], pad_after[d]) >= (*in)[d]) {
      return absl::InvalidArgumentError(absl::StrCat("pad: reflect pads ", pad_before[d], " and ",
                                                     pad_after[d], " of dimension ", d,
                                                     " must be below its extent ", (*in)[d]));
    }
    out_shape.push_back((*in)[d] + pad_before[d] + pad_after[d]);
  }
  const Expr fill = ir::MakeConst(x.dtype(), value);
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<ir::Var>& i) {
        std::vector<Expr> idx;
        Expr inside;
        for (size_t d = 0; d < rank; ++d) {
          Expr j = i[d] - I32(pad_before[d]);
          if (pad_before[d] == 0 && pad_after[d] == 0) {
            idx.push_back(j);
            continue;
          }
          const Expr last = I32((*in)[d] - 1);
          if (mode == PadMode::kEdge) {
            j = ir::min(ir::max(j, I32(0)), last);
          } else if (mode == PadMode::kReflect) {
            // |j| mirrors the front; last - |last - |j|| then mirrors the back.
            const Expr a = ir::max(j, I32(0) - j);
            j = last - ir::max(last - a, a - last);
          } else {
            Expr c = j >= 0 && j < I32((*in)[d]);
            inside = inside.defined() ? (inside && c) : c;
          }
          idx.push_back(j);
        }
        if (!inside.defined()) return x(idx);
        return ir::if_then_else(inside, x(idx), fill);
      },
      "pad");
}

}  // namespace tessel::ops::nn
