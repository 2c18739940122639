#include "compiler/arith/constant_fold.h"

#include <algorithm>
#include <cmath>

#include "compiler/arith/int_math.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::arith::internal {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

namespace {

bool IsComparison(NodeKind kind) {
  return kind == NodeKind::kEQ || kind == NodeKind::kNE || kind == NodeKind::kLT ||
         kind == NodeKind::kLE || kind == NodeKind::kGT || kind == NodeKind::kGE;
}

template <typename T>
bool Compare(NodeKind kind, T x, T y) {
  switch (kind) {
    case NodeKind::kEQ:
      return x == y;
    case NodeKind::kNE:
      return x != y;
    case NodeKind::kLT:
      return x < y;
    case NodeKind::kLE:
      return x <= y;
    case NodeKind::kGT:
      return x > y;
    default:
      return x >= y;
  }
}

Expr FoldInt(NodeKind kind, DataType t, int64_t x, int64_t y) {
  // op.h reads unsigned 64-bit immediates as int64; order-sensitive folds would disagree with the
  // unsigned meaning above 2^63, so they are left alone.
  const bool exact = HasExactInt64Value(t, x) && HasExactInt64Value(t, y);
  switch (kind) {
    case NodeKind::kAdd:
      return ir::IntImm(t, WrapAdd(t, x, y));
    case NodeKind::kSub:
      return ir::IntImm(t, WrapSub(t, x, y));
    case NodeKind::kMul:
      return ir::IntImm(t, WrapMul(t, x, y));
    case NodeKind::kDiv:
      if (y == 0 || !exact || t.is_bool()) return Expr();
      return ir::IntImm(t, TruncDiv(x, y));
    case NodeKind::kMod:
      if (y == 0 || !exact || t.is_bool()) return Expr();
      return ir::IntImm(t, TruncMod(x, y));
    case NodeKind::kFloorDiv:
      if (y == 0 || !exact || t.is_bool()) return Expr();
      return ir::IntImm(t, FloorDiv(x, y));
    case NodeKind::kFloorMod:
      if (y == 0 || !exact || t.is_bool()) return Expr();
      return ir::IntImm(t, FloorMod(x, y));
    case NodeKind::kMin:
      if (!exact) return Expr();
      return ir::IntImm(t, std::min(x, y));
    case NodeKind::kMax:
      if (!exact) return Expr();
      return ir::IntImm(t, std::max(x, y));
    case NodeKind::kAnd:
      return ir::IntImm(t, x != 0 && y != 0);
    case NodeKind::kOr:
      return ir::IntImm(t, x != 0 || y != 0);
    default:
      if (IsComparison(kind) && exact) return ir::IntImm(ir::kBool, Compare(kind, x, y));
      return Expr();
  }
}

Expr FoldFloat(NodeKind kind, DataType t, double x, double y) {
  switch (kind) {
    case NodeKind::kAdd:
      return ir::FloatImm(t, x + y);
    case NodeKind::kSub:
      return ir::FloatImm(t, x - y);
    case NodeKind::kMul:
      return ir::FloatImm(t, x * y);
    case NodeKind::kDiv:
      return ir::FloatImm(t, x / y);
    case NodeKind::kMin:
      return ir::FloatImm(t, std::min(x, y));
    case NodeKind::kMax:
      return ir::FloatImm(t, std::max(x, y));
    default:
      if (IsComparison(kind)) return ir::IntImm(ir::kBool, Compare(kind, x, y));
      return Expr();
  }
}

}  // namespace

Expr FoldBinary(NodeKind kind, const Expr& a, const Expr& b) {
  if (a.dtype() != b.dtype() || !a.dtype().is_scalar()) return Expr();
  if (const auto* x = a.as<ir::IntImmNode>()) {
    if (const auto* y = b.as<ir::IntImmNode>()) return FoldInt(kind, a.dtype(), x->value, y->value);
    return Expr();
  }
  if (const auto* x = a.as<ir::FloatImmNode>()) {
    if (const auto* y = b.as<ir::FloatImmNode>()) {
      return FoldFloat(kind, a.dtype(), x->value, y->value);
    }
  }
  return Expr();
}

Expr FoldCast(DataType dtype, const Expr& value) {
  if (!dtype.is_scalar() || !value.dtype().is_scalar()) return Expr();
  if (value.dtype() == dtype) return value;
  if (const auto* i = value.as<ir::IntImmNode>()) {
    if (dtype.is_float()) {
      const double v = value.dtype().is_uint()
                           ? static_cast<double>(static_cast<uint64_t>(i->value))
                           : static_cast<double>(i->value);
      return ir::FloatImm(dtype, v);
    }
    if (dtype.is_integer() || dtype.is_bool()) return ir::IntImm(dtype, i->value);
    return Expr();
  }
  if (const auto* f = value.as<ir::FloatImmNode>()) {
    if (dtype.is_float()) return ir::FloatImm(dtype, f->value);
    if (dtype.is_bool()) return ir::IntImm(dtype, f->value != 0);
    if (!dtype.is_integer()) return Expr();
    const double t = std::trunc(f->value);
    // Outside int64 the C conversion is undefined; leave it to the target.
    if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) return Expr();
    return ir::IntImm(dtype, static_cast<int64_t>(t));
  }
  return Expr();
}

Expr FoldBitIntrinsic(const ir::CallNode* call) {
  const DataType t = call->dtype;
  if (!t.is_scalar() || !t.is_integer()) return Expr();
  std::vector<int64_t> v;
  for (const Expr& arg : call->args) {
    const int64_t* c = ir::AsConstInt(arg);
    if (!c) return Expr();
    v.push_back(*c);
  }
  const uint64_t mask = t.bits() >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.bits()) - 1;
  switch (call->op) {
    case ir::Intrinsic::kBitwiseAnd:
      return ir::IntImm(t, v[0] & v[1]);
    case ir::Intrinsic::kBitwiseOr:
      return ir::IntImm(t, v[0] | v[1]);
    case ir::Intrinsic::kBitwiseXor:
      return ir::IntImm(t, v[0] ^ v[1]);
    case ir::Intrinsic::kBitwiseNot:
      return ir::IntImm(t, ~v[0]);
    case ir::Intrinsic::kPopcount:
      return ir::IntImm(t, std::popcount(static_cast<uint64_t>(v[0]) & mask));
    case ir::Intrinsic::kShiftLeft:
      if (v[1] < 0 || v[1] >= t.bits()) return Expr();
      return ir::IntImm(t, static_cast<int64_t>(static_cast<uint64_t>(v[0]) << v[1]));
    case ir::Intrinsic::kShiftRight:
      if (v[1] < 0 || v[1] >= t.bits()) return Expr();
      // Signed values shift arithmetically; unsigned ones logically within their width.
      if (t.is_uint())
        return ir::IntImm(t, static_cast<int64_t>((static_cast<uint64_t>(v[0]) & mask) >> v[1]));
      return ir::IntImm(t, v[0] >> v[1]);
    default:
      return Expr();
  }
}

Expr MakeBinary(NodeKind kind, Expr a, Expr b) {
  if (Expr folded = FoldBinary(kind, a, b); folded.defined()) return folded;
  switch (kind) {
#define TESSEL_X(name)    \
  case NodeKind::k##name: \
    return ir::name(std::move(a), std::move(b));
    TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "not a binary node: " << ir::NodeKindName(kind);
  }
}

}  // namespace tessel::arith::internal
