#include "compiler/arith/simplifier.h"

#include <algorithm>

#include "compiler/arith/constant_fold.h"
#include "compiler/arith/expr_compare.h"
#include "compiler/arith/expr_query.h"
#include "compiler/arith/int_math.h"
#include "compiler/arith/pattern.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::arith::internal {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

bool IsConstScalar(const Expr& e, int64_t* value) {
  if (const auto* b = e.as<ir::BroadcastNode>()) return IsConstScalar(b->value, value);
  const int64_t* v = ir::AsConstInt(e);
  if (v) *value = *v;
  return v != nullptr;
}

Expr BoolImm(bool value, int lanes) {
  Expr scalar = ir::IntImm(ir::kBool, value);
  return lanes == 1 ? scalar : ir::Broadcast(scalar, lanes);
}

Expr Simplifier::Simplify(const Expr& e) {
  impure_ = HasSideEffects(e);
  return Visit(e);
}

bool Simplifier::Pure(const Expr& e) { return !impure_ || !HasSideEffects(e); }

Expr Simplifier::Resimplify(const Expr& e) {
  if (budget_ <= 0) return e;
  --budget_;
  return Visit(e);
}

ConstIntBound Simplifier::Bound(const Expr& e) { return EvalConstIntBound(e, state_.bounds); }

ConstIntBound Simplifier::Bound(const Polynomial& p) {
  if (p.wrapped) return ConstIntBound::OfType(p.dtype);
  ConstIntBound sum = ConstIntBound::Point(p.constant);
  for (const Term& term : p.terms) {
    ConstIntBound product = ConstIntBound::Point(term.coeff);
    for (const Expr& atom : term.atoms) {
      const ConstIntBound b = Bound(atom);
      const int64_t c[] = {
          BoundMul(product.min_value, b.min_value), BoundMul(product.min_value, b.max_value),
          BoundMul(product.max_value, b.min_value), BoundMul(product.max_value, b.max_value)};
      product = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    sum = {LowAdd(sum.min_value, product.min_value), HighAdd(sum.max_value, product.max_value)};
  }
  // Index types: the exact interval (const_int_bound.h), unclipped. Others wrap.
  if (IsIndexType(p.dtype)) return sum;
  const ConstIntBound whole = ConstIntBound::OfType(p.dtype);
  if (sum.min_value >= whole.min_value && sum.max_value <= whole.max_value) return sum;
  return whole;
}

bool Simplifier::Fits(const Polynomial& p) {
  if (p.wrapped) return false;
  const ConstIntBound b = Bound(p);
  return FitsType(b.min_value, b.max_value, p.dtype);
}

ModularSet Simplifier::Modular(const Expr& e) {
  return EvalModularSet(e, state_.modular, state_.bounds);
}

int Simplifier::ProveOrder(const Expr& a, const Expr& b) {
  if (IsIndexType(a.dtype())) {
    const Polynomial d = SubPolynomials(ToPolynomial(a), ToPolynomial(b));
    const ConstIntBound bd = DecisiveBound(
        d, [](const ConstIntBound& x) { return x.max_value <= 0 || x.min_value >= 0; });
    if (bd.max_value <= 0) return -1;
    if (bd.min_value >= 0) return 1;
    return 0;
  }
  const ConstIntBound ba = Bound(a), bb = Bound(b);
  if (ba.max_value <= bb.min_value) return -1;
  if (ba.min_value >= bb.max_value) return 1;
  return 0;
}

Expr Simplifier::Visit(const Expr& e) {
  switch (e.kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kStringImm:
      return e;
    case NodeKind::kVar: {
      auto it = state_.values.find(e.as<ir::VarNode>());
      if (it == state_.values.end()) return e;
      if (!impure_ && HasSideEffects(it->second)) impure_ = true;
      return it->second;
    }
    case NodeKind::kCast: {
      const auto* op = e.as<ir::CastNode>();
      Expr value = Visit(op->value);
      Expr result = SimplifyCast(op->dtype, value);
      const auto* cast = result.as<ir::CastNode>();
      return cast && cast->value.same_as(op->value) ? e : result;
    }
#define TESSEL_X(name)                                                    \
  case NodeKind::k##name: {                                               \
    const auto* op = e.as<ir::name##Node>();                              \
    return SimplifyBinary(NodeKind::k##name, Visit(op->a), Visit(op->b)); \
  }
      TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    case NodeKind::kNot:
      return SimplifyNot(Visit(e.as<ir::NotNode>()->a));
    case NodeKind::kSelect: {
      const auto* op = e.as<ir::SelectNode>();
      return SimplifySelect(Visit(op->condition), Visit(op->true_value), Visit(op->false_value));
    }
    case NodeKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      Expr base = Visit(op->base), stride = Visit(op->stride);
      if (ir::IsConstInt(stride, 0)) return ir::Broadcast(base, op->lanes);
      if (base.same_as(op->base) && stride.same_as(op->stride)) return e;
      return ir::Ramp(base, stride, op->lanes);
    }
    case NodeKind::kBroadcast: {
      const auto* op = e.as<ir::BroadcastNode>();
      Expr value = Visit(op->value);
      return value.same_as(op->value) ? e : ir::Broadcast(value, op->lanes);
    }
    case NodeKind::kLet:
      return SimplifyLet(e.as<ir::LetNode>());
    case NodeKind::kCall:
      return SimplifyCall(e);
    case NodeKind::kBufferLoad: {
      const auto* op = e.as<ir::BufferLoadNode>();
      bool changed = false;
      std::vector<Expr> indices;
      for (const Expr& index : op->indices) {
        indices.push_back(Visit(index));
        changed |= !indices.back().same_as(index);
      }
      return changed ? ir::BufferLoad(op->buffer, std::move(indices)) : e;
    }
    case NodeKind::kProducerLoad: {
      const auto* op = e.as<ir::ProducerLoadNode>();
      bool changed = false;
      std::vector<Expr> indices;
      for (const Expr& index : op->indices) {
        indices.push_back(Visit(index));
        changed |= !indices.back().same_as(index);
      }
      return changed ? ir::ProducerLoad(op->producer, std::move(indices)) : e;
    }
    case NodeKind::kReduce:
      return SimplifyReduce(e);
    default:
      TESSEL_UNREACHABLE() << "statement kind " << ir::NodeKindName(e.kind()) << " as expression";
  }
}

Expr Simplifier::SimplifyBinary(NodeKind kind, const Expr& a, const Expr& b) {
  if (kind != NodeKind::kAnd && kind != NodeKind::kOr && (!Pure(a) || !Pure(b))) {
    return MakeBinary(kind, a, b);
  }
  if (a.dtype().is_vector()) return SimplifyVectorBinary(kind, a, b);
  if (Expr folded = FoldBinary(kind, a, b); folded.defined()) return folded;
  switch (kind) {
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul:
      return SimplifyArith(kind, a, b);
    case NodeKind::kDiv:
    case NodeKind::kMod:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      return SimplifyDivision(kind, a, b);
    case NodeKind::kMin:
    case NodeKind::kMax:
      return SimplifyMinMax(kind, a, b);
    case NodeKind::kAnd:
      return SimplifyAnd(a, b);
    case NodeKind::kOr:
      return SimplifyOr(a, b);
    default:
      return SimplifyCompare(kind, a, b);
  }
}

namespace {

// Whether every value of `narrow` converts to `wide` and back unchanged.
bool Holds(DataType wide, DataType narrow) {
  wide = wide.element_of();
  narrow = narrow.element_of();
  if (narrow.is_bool()) return wide.is_integer();
  if (!narrow.is_integer()) return false;
  if (wide.is_int())
    return narrow.is_int() ? wide.bits() >= narrow.bits() : wide.bits() > narrow.bits();
  if (wide.is_uint()) return narrow.is_uint() && wide.bits() >= narrow.bits();
  if (wide.is_float())
    return narrow.bits() <= (wide.bits() == 64 ? 32 : wide.bits() == 32 ? 16 : 8);
  return false;
}

}  // namespace

Expr Simplifier::SimplifyCast(DataType dtype, const Expr& value) {
  if (value.dtype() == dtype) return value;
  if (Expr folded = FoldCast(dtype, value); folded.defined()) return folded;
  if (const auto* b = value.as<ir::BroadcastNode>()) {
    return ir::Broadcast(SimplifyCast(dtype.element_of(), b->value), b->lanes);
  }
  if (const auto* inner = value.as<ir::CastNode>()) {
    if (inner->value.dtype() == dtype && Holds(inner->dtype, dtype)) return inner->value;
  }
  return ir::Cast(dtype, value);
}

Expr Simplifier::SimplifySelect(const Expr& c, const Expr& t, const Expr& f) {
  int64_t cv;
  if (IsConstScalar(c, &cv)) {
    const Expr& dropped = cv ? f : t;
    if (Pure(dropped)) return cv ? t : f;
  }
  const Expr e = ir::Select(c, t, f);
  if (!Pure(e)) return e;
  if (ExprEqual(t, f)) return t;
  const DataType type = t.dtype();
  if (type.is_bool() && c.dtype() == type) {
    int64_t tv, fv;
    if (IsConstScalar(t, &tv) && IsConstScalar(f, &fv)) return tv ? c : SimplifyNot(c);
  }
  using namespace pattern;  // NOLINT: the rule notation
  PVar x, y, z, cond;
  TESSEL_REWRITE(e, select(!cond, x, y), select(cond, y, x));
  TESSEL_REWRITE(e, select(cond, select(cond, x, y), z), select(cond, x, z));
  TESSEL_REWRITE(e, select(cond, x, select(cond, y, z)), select(cond, x, z));
  if (type.is_scalar() && type.is_integer()) {
    // The comparisons here are in the simplifier's layout: GT and GE never remain.
    auto minmax = [this](NodeKind kind, const PVar& p, const PVar& q) {
      return Resimplify(MakeBinary(kind, p.value(), q.value()));
    };
    if (Matches(select(x < y, x, y), e) || Matches(select(x <= y, x, y), e)) {
      return minmax(NodeKind::kMin, x, y);
    }
    if (Matches(select(x < y, y, x), e) || Matches(select(x <= y, y, x), e)) {
      return minmax(NodeKind::kMax, x, y);
    }
  }
  return e;
}

Expr Simplifier::SimplifyLet(const ir::LetNode* op) {
  Expr value = Visit(op->value);
  const bool trivial =
      value.as<ir::IntImmNode>() || value.as<ir::FloatImmNode>() || value.as<ir::VarNode>();
  const size_t mark = state_.Mark();
  VarFacts facts;
  if (trivial) {
    facts.value = value;
  } else if (IsIntegerLike(value.dtype())) {
    facts.bound = Bound(value);
    facts.modular = Modular(value);
    if (value.dtype().is_scalar()) facts.range = IntSet::Single(value);
  }
  state_.Set(op->var.get(), std::move(facts));
  Expr body = Visit(op->body);
  state_.Restore(mark);
  if (trivial) return body;
  const ir::VarNode* var = op->var.get();
  if (!UsesVar(body, [var](const ir::VarNode* v) { return v == var; }) && Pure(value)) {
    return body;
  }
  return ir::Let(op->var, value, body);
}

Expr Simplifier::SimplifyCall(const Expr& e) {
  const auto* op = e.as<ir::CallNode>();
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& arg : op->args) {
    args.push_back(Visit(arg));
    changed |= !args.back().same_as(arg);
  }
  int64_t c;
  switch (op->op) {
    case ir::Intrinsic::kIfThenElse:
      // Only the taken branch is evaluated, so the other may go whatever it holds.
      if (IsConstScalar(args[0], &c)) return c ? args[1] : args[2];
      if (ExprEqual(args[1], args[2]) && Pure(args[0])) return args[1];
      break;
    case ir::Intrinsic::kLikely:
      if (IsConstScalar(args[0], &c)) return args[0];
      break;
    default:
      break;
  }
  Expr call = changed ? ir::Call(op->dtype, op->op, std::move(args)) : e;
  if (Expr folded = FoldBitIntrinsic(call.as<ir::CallNode>()); folded.defined()) return folded;
  return call;
}

Expr Simplifier::SimplifyReduce(const Expr& e) {
  const auto* op = e.as<ir::ReduceNode>();
  const size_t mark = state_.Mark();
  for (const ir::IterVar& iv : op->axis) analyzer_.Bind(iv.var(), iv->dom);
  bool changed = false;
  std::vector<Expr> source;
  for (const Expr& s : op->source) {
    source.push_back(Visit(s));
    changed |= !source.back().same_as(s);
  }
  Expr condition = Visit(op->condition);
  state_.Restore(mark);
  if (!changed && condition.same_as(op->condition)) return e;
  return ir::Reduce(op->combiner, std::move(source), op->axis, condition, op->value_index);
}

Expr Simplifier::SimplifyVectorBinary(NodeKind kind, const Expr& a, const Expr& b) {
  const int lanes = a.dtype().lanes();
  const auto* ba = a.as<ir::BroadcastNode>();
  const auto* bb = b.as<ir::BroadcastNode>();
  if (ba && bb) return ir::Broadcast(SimplifyBinary(kind, ba->value, bb->value), lanes);
  const DataType t = a.dtype().element_of();
  const auto* ra = a.as<ir::RampNode>();
  const auto* rb = b.as<ir::RampNode>();
  auto ramp = [&](NodeKind op, const Expr& x, const Expr& y, NodeKind stride_op, const Expr& s,
                  const Expr& u) {
    Expr base = SimplifyBinary(op, x, y);
    Expr stride = u.defined() ? SimplifyBinary(stride_op, s, u) : s;
    if (ir::IsConstInt(stride, 0)) return ir::Broadcast(base, lanes);
    return ir::Ramp(base, stride, lanes);
  };
  if (t.is_integer()) {
    const Expr none;
    switch (kind) {
      case NodeKind::kAdd:
        if (ra && rb) return ramp(kind, ra->base, rb->base, kind, ra->stride, rb->stride);
        if (ra && bb) return ramp(kind, ra->base, bb->value, kind, ra->stride, none);
        if (ba && rb) return ramp(kind, ba->value, rb->base, kind, rb->stride, none);
        break;
      case NodeKind::kSub:
        if (ra && rb) return ramp(kind, ra->base, rb->base, kind, ra->stride, rb->stride);
        if (ra && bb) return ramp(kind, ra->base, bb->value, kind, ra->stride, none);
        if (ba && rb) return ramp(kind, ba->value, rb->base, kind, ir::IntImm(t, 0), rb->stride);
        break;
      case NodeKind::kMul:
        if (ra && bb) return ramp(kind, ra->base, bb->value, kind, ra->stride, bb->value);
        if (ba && rb) return ramp(kind, ba->value, rb->base, kind, ba->value, rb->stride);
        break;
      case NodeKind::kFloorDiv:
      case NodeKind::kFloorMod: {
        int64_t c, s;
        if (!ra || !bb || !IsIndexType(t) || !IsConstScalar(bb->value, &c) || c <= 0 ||
            !IsConstScalar(ra->stride, &s) || s < 0) {
          break;
        }
        // All lanes in one block of c: base = c*q + r with r + s*(lanes-1) < c.
        const ModularSet m = Modular(ra->base);
        if (m.coeff % c != 0) break;
        const Wide last = Wide{FloorMod(m.base, c)} + Wide{s} * (lanes - 1);
        if (last >= c) break;
        Expr scalar = SimplifyBinary(kind, ra->base, bb->value);
        if (kind == NodeKind::kFloorDiv) return ir::Broadcast(scalar, lanes);
        return ir::Ramp(scalar, ra->stride, lanes);
      }
      default:
        break;
    }
  }
  if (IsIntegerLike(t) &&
      (kind == NodeKind::kLT || kind == NodeKind::kLE || kind == NodeKind::kGT ||
       kind == NodeKind::kGE || kind == NodeKind::kEQ || kind == NodeKind::kNE)) {
    const ConstIntBound x = Bound(a), y = Bound(b);
    auto less = [](const ConstIntBound& p, const ConstIntBound& q, bool strict) -> int {
      if (strict ? p.max_value < q.min_value : p.max_value <= q.min_value) return 1;
      if (strict ? p.min_value >= q.max_value : p.min_value > q.max_value) return 0;
      return -1;
    };
    int decided = -1;
    switch (kind) {
      case NodeKind::kLT:
        decided = less(x, y, true);
        break;
      case NodeKind::kLE:
        decided = less(x, y, false);
        break;
      case NodeKind::kGT:
        decided = less(y, x, true);
        break;
      case NodeKind::kGE:
        decided = less(y, x, false);
        break;
      default: {
        const bool apart = x.max_value < y.min_value || y.max_value < x.min_value;
        if (apart) decided = kind == NodeKind::kNE;
        break;
      }
    }
    if (decided >= 0) return BoolImm(decided == 1, lanes);
  }
  if (t.is_bool() && (kind == NodeKind::kAnd || kind == NodeKind::kOr)) {
    // A broadcast immediate on either side: the identity gives the other side, the absorbing
    // value gives itself.
    const bool is_and = kind == NodeKind::kAnd;
    for (const bool constant_first : {true, false}) {
      const Expr& constant = constant_first ? a : b;
      const Expr& other = constant_first ? b : a;
      int64_t c;
      if (!constant.as<ir::BroadcastNode>() || !IsConstScalar(constant, &c)) continue;
      if ((c != 0) == is_and) return other;
      if (Pure(other)) return constant;
    }
  }
  return MakeBinary(kind, a, b);
}

}  // namespace tessel::arith::internal
