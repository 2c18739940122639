#include "compiler/arith/fuzz_support.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith::testing {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;
using ir::Var;
using Wide = __int128;

namespace {

Wide TypeMinOf(DataType t) { return t.bits() == 64 ? Wide{INT64_MIN} : Wide{INT32_MIN}; }
Wide TypeMaxOf(DataType t) { return t.bits() == 64 ? Wide{INT64_MAX} : Wide{INT32_MAX}; }

int64_t WrapTo(DataType t, Wide v) {
  if (t.is_bool()) return v != 0;
  const uint64_t bits = static_cast<uint64_t>(v);
  if (t.bits() == 64) return static_cast<int64_t>(bits);
  return static_cast<int32_t>(static_cast<uint32_t>(bits));
}

Wide FloorDivWide(Wide a, Wide b) {
  const Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

int64_t ReferenceEvaluator::Arith(DataType t, Wide v) {
  if (v < TypeMinOf(t) || v > TypeMaxOf(t)) overflow = true;
  return WrapTo(t, v);
}

int64_t ReferenceEvaluator::Divide(DataType t, const Expr& a_expr, const Expr& b_expr, bool floor,
                                   bool mod) {
  const Wide a = Eval(a_expr), b = Eval(b_expr);
  if (b == 0) {
    undefined = true;
    return 0;
  }
  const Wide q = floor ? FloorDivWide(a, b) : a / b;
  if (mod) return WrapTo(t, a - q * b);
  return Arith(t.element_of(), q);
}

int64_t ReferenceEvaluator::Eval(const Expr& e) {
  const DataType t = e.dtype().element_of();
  switch (e.kind()) {
    case NodeKind::kIntImm:
      return e.as<ir::IntImmNode>()->value;
    case NodeKind::kVar: {
      auto it = env.find(e.as<ir::VarNode>());
      if (it == env.end()) {
        ADD_FAILURE() << "unbound variable " << e;
        return 0;
      }
      return it->second;
    }
    case NodeKind::kCast:
      return WrapTo(t, Eval(e.as<ir::CastNode>()->value));
    case NodeKind::kAdd:
      return Arith(t, Wide{Eval(e.as<ir::AddNode>()->a)} + Eval(e.as<ir::AddNode>()->b));
    case NodeKind::kSub:
      return Arith(t, Wide{Eval(e.as<ir::SubNode>()->a)} - Eval(e.as<ir::SubNode>()->b));
    case NodeKind::kMul:
      return Arith(t, Wide{Eval(e.as<ir::MulNode>()->a)} * Eval(e.as<ir::MulNode>()->b));
    case NodeKind::kDiv:
      return Divide(t, e.as<ir::DivNode>()->a, e.as<ir::DivNode>()->b, false, false);
    case NodeKind::kMod:
      return Divide(t, e.as<ir::ModNode>()->a, e.as<ir::ModNode>()->b, false, true);
    case NodeKind::kFloorDiv:
      return Divide(t, e.as<ir::FloorDivNode>()->a, e.as<ir::FloorDivNode>()->b, true, false);
    case NodeKind::kFloorMod:
      return Divide(t, e.as<ir::FloorModNode>()->a, e.as<ir::FloorModNode>()->b, true, true);
    case NodeKind::kMin:
      return std::min(Eval(e.as<ir::MinNode>()->a), Eval(e.as<ir::MinNode>()->b));
    case NodeKind::kMax:
      return std::max(Eval(e.as<ir::MaxNode>()->a), Eval(e.as<ir::MaxNode>()->b));
    case NodeKind::kEQ:
      return Eval(e.as<ir::EQNode>()->a) == Eval(e.as<ir::EQNode>()->b);
    case NodeKind::kNE:
      return Eval(e.as<ir::NENode>()->a) != Eval(e.as<ir::NENode>()->b);
    case NodeKind::kLT:
      return Eval(e.as<ir::LTNode>()->a) < Eval(e.as<ir::LTNode>()->b);
    case NodeKind::kLE:
      return Eval(e.as<ir::LENode>()->a) <= Eval(e.as<ir::LENode>()->b);
    case NodeKind::kGT:
      return Eval(e.as<ir::GTNode>()->a) > Eval(e.as<ir::GTNode>()->b);
    case NodeKind::kGE:
      return Eval(e.as<ir::GENode>()->a) >= Eval(e.as<ir::GENode>()->b);
    case NodeKind::kAnd: {
      const int64_t a = Eval(e.as<ir::AndNode>()->a), b = Eval(e.as<ir::AndNode>()->b);
      return a && b;
    }
    case NodeKind::kOr: {
      const int64_t a = Eval(e.as<ir::OrNode>()->a), b = Eval(e.as<ir::OrNode>()->b);
      return a || b;
    }
    case NodeKind::kNot:
      return !Eval(e.as<ir::NotNode>()->a);
    case NodeKind::kSelect: {
      const auto* op = e.as<ir::SelectNode>();
      const int64_t c = Eval(op->condition), x = Eval(op->true_value), y = Eval(op->false_value);
      return c ? x : y;
    }
    case NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      const int64_t base = Eval(op->base), stride = Eval(op->stride);
      return Arith(t, Wide{base} + Wide{stride} * lane);
    }
    case NodeKind::kBroadcast:
      return Eval(e.as<ir::BroadcastNode>()->value);
    case NodeKind::kLet: {
      const auto* op = e.as<ir::LetNode>();
      const int64_t value = Eval(op->value);
      auto [it, inserted] = env.emplace(op->var.get(), value);
      EXPECT_TRUE(inserted) << "a Let rebinds " << op->var;
      const int64_t body = Eval(op->body);
      env.erase(it);
      return body;
    }
    case NodeKind::kCall: {
      const auto* op = e.as<ir::CallNode>();
      if (op->op == ir::Intrinsic::kLikely) return Eval(op->args[0]);
      if (op->op == ir::Intrinsic::kIfThenElse) {
        return Eval(op->args[0]) ? Eval(op->args[1]) : Eval(op->args[2]);
      }
      ADD_FAILURE() << "unexpected call " << e;
      return 0;
    }
    default:
      ADD_FAILURE() << "unexpected node " << e;
      return 0;
  }
}

ExprGenerator::ExprGenerator(uint64_t seed, DataType t) : rng_(seed), t_(t) {
  const DataType other = t.bits() == 32 ? ir::kInt64 : ir::kInt32;
  for (const char* name : {"x", "y", "z"}) vars_.push_back(MakeVar(name, t, false));
  vars_.push_back(MakeVar("d", t, true));
  other_ = MakeVar("w", other, false);
  if (Pick(3) == 0) {
    FuzzVar& y = vars_[1];
    y.lo = std::max<int64_t>(y.lo, 1);
    y.hi = std::max(y.hi, y.lo);
    vars_[0].lo = 0;
    vars_[0].hi = y.hi - 1;
    vars_[0].upper = y.var.get();
  }
}

std::vector<FuzzVar> ExprGenerator::Vars() const {
  std::vector<FuzzVar> all(vars_.begin() + 1, vars_.end());
  all.push_back(other_);
  all.push_back(vars_[0]);  // x may range below y
  return all;
}

FuzzVar ExprGenerator::MakeVar(const char* name, DataType t, bool nonzero) {
  int64_t lo, hi;
  if (nonzero) {
    hi = Uniform(1, 17);
    lo = Uniform(1, hi);
    if (Pick(2)) {
      std::swap(lo, hi);
      lo = -lo;
      hi = -hi;
    }
  } else {
    static const int64_t kExtents[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 100, 255, 1000, 4096};
    const int64_t extent = kExtents[Pick(14)];
    switch (Pick(4)) {
      case 0:
        lo = 0;
        break;
      case 1:
        lo = -extent / 2;
        break;
      case 2:
        lo = Uniform(-1000, 1000);
        break;
      default:
        lo = t.bits() == 64 ? Uniform(-(int64_t{1} << 40), int64_t{1} << 40)
                            : Uniform(-20000, 20000);
        break;
    }
    hi = lo + extent;
  }
  return FuzzVar{Var(name, t), lo, hi};
}

Expr ExprGenerator::Constant(DataType t) {
  static const int64_t kSmall[] = {0, 1, -1, 2, 3, 4, 5, 7, 8, 16, -2, -3, -4, -8, 64, 100};
  int64_t v;
  switch (Pick(6)) {
    case 0:
      v = Uniform(-100, 100);
      break;
    case 1:
      v = t.bits() == 64 && Pick(4) == 0 ? Uniform(-(int64_t{1} << 45), int64_t{1} << 45)
                                         : Uniform(-5000, 5000);
      break;
    default:
      v = kSmall[Pick(16)];
      break;
  }
  return ir::IntImm(t, v);
}

Expr ExprGenerator::NonZeroConstant(DataType t) {
  static const int64_t kDivisors[] = {1, 2, 3, 4, 5, 7, 8, 16, 64, -1, -2, -3, -4, -8, 6, 32};
  return ir::IntImm(t, kDivisors[Pick(16)]);
}

Expr ExprGenerator::Leaf(DataType t) {
  if (t == t_ && Pick(10) < 6) return vars_[Pick(static_cast<int>(vars_.size()))].var;
  if (t != t_ && Pick(2)) return other_.var;
  return Constant(t);
}

Expr ExprGenerator::Bool(int depth) {
  const int pick = Pick(10);
  if (depth <= 0 || pick < 6) {
    const DataType ct = Pick(5) == 0 ? other_.var.dtype() : t_;
    const Expr a = IntOf(ct, depth - 1), b = IntOf(ct, depth - 1);
    switch (Pick(6)) {
      case 0:
        return ir::LT(a, b);
      case 1:
        return ir::LE(a, b);
      case 2:
        return ir::GT(a, b);
      case 3:
        return ir::GE(a, b);
      case 4:
        return ir::EQ(a, b);
      default:
        return ir::NE(a, b);
    }
  }
  if (pick < 8) {
    return Pick(2) ? ir::And(Bool(depth - 1), Bool(depth - 1))
                   : ir::Or(Bool(depth - 1), Bool(depth - 1));
  }
  if (pick < 9) return ir::Not(Bool(depth - 1));
  return ir::Call(ir::kBool, ir::Intrinsic::kLikely, {Bool(depth - 1)});
}

Expr ExprGenerator::IntOf(DataType t, int depth) {
  if (depth <= 0 || Pick(10) < 2) return Leaf(t);
  const int pick = Pick(100);
  if (pick < 18) return ir::Add(IntOf(t, depth - 1), IntOf(t, depth - 1));
  if (pick < 32) return ir::Sub(IntOf(t, depth - 1), IntOf(t, depth - 1));
  if (pick < 42) {
    // Mostly scaling by a constant, which keeps values in range.
    if (Pick(3)) return ir::Mul(IntOf(t, depth - 1), Constant(t));
    return ir::Mul(IntOf(t, depth - 1), IntOf(t, depth - 2));
  }
  if (pick < 62) {
    const Expr a = IntOf(t, depth - 1);
    const Expr b = t == t_ && Pick(5) == 0 ? Expr(vars_[3].var) : NonZeroConstant(t);
    switch (Pick(4)) {
      case 0:
        return ir::FloorDiv(a, b);
      case 1:
        return ir::FloorMod(a, b);
      case 2:
        return ir::Div(a, b);
      default:
        return ir::Mod(a, b);
    }
  }
  if (pick < 72) {
    const Expr a = IntOf(t, depth - 1), b = IntOf(t, depth - 1);
    return Pick(2) ? ir::Min(a, b) : ir::Max(a, b);
  }
  if (pick < 82) return ir::Select(Bool(depth - 1), IntOf(t, depth - 1), IntOf(t, depth - 1));
  if (pick < 86) {
    return ir::Call(t, ir::Intrinsic::kIfThenElse,
                    {Bool(depth - 1), IntOf(t, depth - 1), IntOf(t, depth - 1)});
  }
  if (pick < 92) {
    const DataType other = t.bits() == 32 ? ir::kInt64 : ir::kInt32;
    if (Pick(3) == 0) return ir::Cast(t, Bool(depth - 1));
    return ir::Cast(t, IntOf(other, depth - 1));
  }
  if (pick < 95) return Structured(t, depth);
  if (pick < 98) {
    Var v("v", t);
    const Expr value = IntOf(t, depth - 1);
    Expr body = IntOf(t, depth - 1);
    body = Pick(2) ? ir::Add(body, v) : ir::Mul(v, ir::IntImm(t, 3));
    return ir::Let(v, value, body);
  }
  return Leaf(t);
}

Expr ExprGenerator::Structured(DataType t, int depth) {
  const Expr a = IntOf(t, depth - 1);
  const Expr k = ir::IntImm(t, Uniform(1, 16));
  const Expr b = Pick(2) ? Leaf(t) : ir::FloorMod(IntOf(t, depth - 2), k);
  const Expr fused = ir::Add(ir::Mul(a, k), b);
  switch (Pick(6)) {
    case 0:
      return ir::FloorDiv(fused, k);
    case 1:
      return ir::FloorMod(fused, k);
    case 2:
      return ir::Add(ir::Mul(ir::FloorDiv(a, k), k), ir::FloorMod(a, k));
    case 3:
      return ir::Select(ir::LT(ir::Add(a, Constant(t)), ir::Add(a, Constant(t))), a, b);
    case 4:
      return ir::Min(ir::Add(a, Constant(t)), ir::Sub(a, Constant(t)));
    default:
      return ir::FloorDiv(ir::FloorDiv(a, k), ir::IntImm(t, Uniform(1, 8)));
  }
}

Expr ExprGenerator::Vector(int depth, int lanes) {
  const DataType t = t_;
  if (depth <= 0 || Pick(10) < 3) {
    if (Pick(3) == 0) return ir::Broadcast(IntOf(t, 2), lanes);
    return ir::Ramp(IntOf(t, 2), ir::IntImm(t, Uniform(-3, 4)), lanes);
  }
  const Expr a = Vector(depth - 1, lanes);
  switch (Pick(8)) {
    case 0:
      return ir::Add(a, Vector(depth - 1, lanes));
    case 1:
      return ir::Sub(a, Vector(depth - 1, lanes));
    case 2:
      return ir::Mul(a, ir::Broadcast(Constant(t), lanes));
    case 3:
      return ir::FloorDiv(a, ir::Broadcast(NonZeroConstant(t), lanes));
    case 4:
      return ir::FloorMod(a, ir::Broadcast(NonZeroConstant(t), lanes));
    case 5: {
      const Expr b = Vector(depth - 1, lanes);
      return Pick(2) ? ir::Min(a, b) : ir::Max(a, b);
    }
    case 6:
      return ir::Select(ir::LT(a, Vector(depth - 1, lanes)), a, Vector(depth - 1, lanes));
    default: {
      // A split of a vectorized index: lanes within one block of a power of two.
      const int64_t k = int64_t{lanes} << Pick(3);
      const Expr base = ir::Mul(IntOf(t, 1), ir::IntImm(t, k));
      const Expr ramp = ir::Ramp(base, ir::IntImm(t, 1), lanes);
      const Expr kv = ir::Broadcast(ir::IntImm(t, k), lanes);
      return Pick(2) ? ir::FloorDiv(ramp, kv) : ir::FloorMod(ramp, kv);
    }
  }
}

}  // namespace tessel::arith::testing
