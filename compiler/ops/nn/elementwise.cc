#include "compiler/ops/nn/elementwise.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"

namespace tessel::ops::nn {
namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace

ir::Expr BinaryElement(BinaryOp op, ir::Expr a, ir::Expr b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSubtract:
      return a - b;
    case BinaryOp::kMultiply:
      return a * b;
    case BinaryOp::kDivide:
      return a / b;
    case BinaryOp::kMaximum:
      return ir::max(a, b);
    case BinaryOp::kMinimum:
      return ir::min(a, b);
    case BinaryOp::kPower:
      return ir::pow(a, b);
  }
  return a;
}

std::vector<ir::Expr> BroadcastIndex(const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& out_shape,
                                     const std::vector<ir::Expr>& out_index) {
  const size_t offset = out_shape.size() - shape.size();
  std::vector<ir::Expr> idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 && out_shape[offset + d] != 1) {
      idx.push_back(ir::IntImm(ir::kInt32, 0));
    } else {
      idx.push_back(out_index[offset + d]);
    }
  }
  return idx;
}

BinaryInputRanges InputRanges(BinaryOp op) {
  if (op == BinaryOp::kDivide) return {.b_low = 0.5, .b_high = 2};
  if (op == BinaryOp::kPower) return {.a_low = 0.5, .a_high = 2, .b_low = -2, .b_high = 2};
  return {};
}

const std::vector<BinaryOp>& AllBinaryOps() {
  static const auto* all = new std::vector<BinaryOp>{
      BinaryOp::kAdd,     BinaryOp::kSubtract, BinaryOp::kMultiply, BinaryOp::kDivide,
      BinaryOp::kMaximum, BinaryOp::kMinimum,  BinaryOp::kPower};
  return *all;
}

std::optional<BinaryOp> FindBinaryOp(const std::string& name) {
  for (BinaryOp op : AllBinaryOps()) {
    if (name == BinaryOpName(op)) return op;
  }
  return std::nullopt;
}

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSubtract:
      return "subtract";
    case BinaryOp::kMultiply:
      return "multiply";
    case BinaryOp::kDivide:
      return "divide";
    case BinaryOp::kMaximum:
      return "maximum";
    case BinaryOp::kMinimum:
      return "minimum";
    case BinaryOp::kPower:
      return "power";
  }
  return "?";
}

absl::StatusOr<std::vector<int64_t>> BroadcastShape(const std::vector<int64_t>& a,
                                                    const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    // Counting from the end: dimension d of the result is a's (a.size() - rank + d).
    const int64_t ea = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const int64_t eb = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (ea != eb && ea != 1 && eb != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot broadcast ", ShapeString(a), " with ", ShapeString(b), ": dimension ",
          static_cast<int64_t>(d) - static_cast<int64_t>(rank), " has extents ", ea, " and ", eb));
    }
    out[d] = ea == 1 ? eb : ea;
  }
  return out;
}

absl::StatusOr<ir::DataType> BinaryElementType(BinaryOp op, const std::string& dtype) {
  absl::StatusOr<ir::DataType> t = ir::DataType::Parse(dtype);
  if (!t.ok()) return t.status();
  if (*t == ir::kFloat32) return t;
  const bool arithmetic = op != BinaryOp::kDivide && op != BinaryOp::kPower;
  if ((*t == ir::kFloat64 && op != BinaryOp::kPower) ||
      ((*t == ir::kInt32 || *t == ir::kInt64) && arithmetic)) {
    return t;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(BinaryOpName(op), " does not compute ", dtype, " elements"));
}

absl::StatusOr<te::Tensor> Binary(BinaryOp op, const te::Tensor& a, const te::Tensor& b) {
  const std::string name = BinaryOpName(op);
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": operands of types ", a.dtype().ToString(), " and ", b.dtype().ToString()));
  }
  if (absl::Status s = BinaryElementType(op, a.dtype().ToString()).status(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", s.message()));
  }
  absl::StatusOr<std::vector<int64_t>> sa = ConstShape(a, name);
  if (!sa.ok()) return sa.status();
  absl::StatusOr<std::vector<int64_t>> sb = ConstShape(b, name);
  if (!sb.ok()) return sb.status();
  absl::StatusOr<std::vector<int64_t>> out = BroadcastShape(*sa, *sb);
  if (!out.ok()) return out.status();
  return te::compute(
      ShapeExprs(*out),
      [&](const std::vector<ir::Var>& i) {
        const std::vector<ir::Expr> index(i.begin(), i.end());
        return BinaryElement(op, a(BroadcastIndex(*sa, *out, index)),
                             b(BroadcastIndex(*sb, *out, index)));
      },
      name);
}

}  // namespace tessel::ops::nn
