#include "compiler/transforms/lower_intrinsics.h"

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

// The constant value of a scalar or broadcast integer immediate.
const int64_t* ConstDivisor(const ir::Expr& e) {
  if (const auto* b = e.as<ir::BroadcastNode>()) return ir::AsConstInt(b->value);
  return ir::AsConstInt(e);
}

class Lowerer : public ir::IRMutator {
 protected:
  ir::Stmt Mutate_(const ir::ForNode* op, const ir::Stmt& self) override {
    const int64_t* min = ir::AsConstInt(op->min);
    if (min && *min >= 0) non_negative_.insert(op->loop_var.get());
    return ir::IRMutator::Mutate_(op, self);
  }

  ir::Expr Mutate_(const ir::CallNode* op, const ir::Expr& self) override {
    ir::Expr visited = ir::IRMutator::Mutate_(op, self);
    const auto* call = visited.as<ir::CallNode>();
    if (!call) return visited;
    switch (call->op) {
      case ir::Intrinsic::kSigmoid: {
        const ir::Expr& x = call->args[0];
        const ir::Expr one = ir::MakeConst(x.dtype(), 1);
        return ir::Div(one, ir::Add(one, ir::Call(x.dtype(), ir::Intrinsic::kExp,
                                                  {ir::Sub(ir::MakeZero(x.dtype()), x)})));
      }
      case ir::Intrinsic::kLikely:
        return call->args[0];
      case ir::Intrinsic::kRound:
        return Round(call->args[0]);
      default:
        return visited;
    }
  }

  ir::Expr Mutate_(const ir::FloorDivNode* op, const ir::Expr& self) override {
    return Division(op->a, op->b, self, /*mod=*/false);
  }
  ir::Expr Mutate_(const ir::FloorModNode* op, const ir::Expr& self) override {
    return Division(op->a, op->b, self, /*mod=*/true);
  }

 private:
  ir::Expr Round(const ir::Expr& x0) {
    const ir::DataType t = x0.dtype();
    ir::Var x("x", t), f("f", t), d("d", t);
    const ir::Expr half = ir::MakeConst(t, 0.5);
    ir::Expr up = ir::Or(ir::GT(d, half), ir::And(ir::EQ(d, half), ir::GE(x, ir::MakeZero(t))));
    ir::Expr body = ir::Select(up, ir::Add(f, ir::MakeConst(t, 1)), f);
    return ir::Let(
        x, x0,
        ir::Let(f, ir::Call(t, ir::Intrinsic::kFloor, {x}), ir::Let(d, ir::Sub(x, f), body)));
  }

  ir::Expr Division(const ir::Expr& a0, const ir::Expr& b0, const ir::Expr& self, bool mod) {
    ir::Expr a = MutateExpr(a0);
    ir::Expr b = MutateExpr(b0);
    const ir::DataType t = a.dtype();
    const int64_t* c = ConstDivisor(b);
    auto rebuild = [&] {
      if (a.same_as(a0) && b.same_as(b0)) return self;
      return mod ? ir::FloorMod(a, b) : ir::FloorDiv(a, b);
    };
    if (!t.is_integer() || !c || *c == 0) return rebuild();
    if (t.is_uint() || (*c > 0 && NonNegative(a))) return mod ? ir::Mod(a, b) : ir::Div(a, b);
    ir::Var x("a", t);
    ir::Var r("r", t);
    const ir::Expr zero = ir::MakeZero(t);
    ir::Expr fix = *c > 0 ? ir::LT(r, zero) : ir::GT(r, zero);
    ir::Expr result;
    if (mod) {
      result = ir::Select(fix, ir::Add(r, b), r);
    } else {
      ir::Var q("q", t);
      result = ir::Let(q, ir::Div(x, b), ir::Select(fix, ir::Sub(q, ir::MakeConst(t, 1)), q));
    }
    return ir::Let(x, a, ir::Let(r, ir::Mod(x, b), result));
  }

  // Whether e is provably >= 0 (see the header for the rules).
  bool NonNegative(const ir::Expr& e) const {
    if (const int64_t* v = ir::AsConstInt(e)) return *v >= 0 || e.dtype().is_uint();
    if (const auto* b = e.as<ir::BroadcastNode>()) return NonNegative(b->value);
    if (const auto* op = e.as<ir::FloorModNode>()) {
      const int64_t* c = ConstDivisor(op->b);
      return c && *c > 0;
    }
    // Index arithmetic (int32, int64) does not overflow (node.h); narrower types wrap.
    const ir::DataType t = e.dtype().element_of();
    if (!(t.is_int() && (t.bits() == 32 || t.bits() == 64))) return false;
    if (const auto* v = e.as<ir::VarNode>()) return non_negative_.count(v) > 0;
    if (const auto* r = e.as<ir::RampNode>()) {
      return NonNegative(r->base) && NonNegative(r->stride);
    }
    if (const auto* cast = e.as<ir::CastNode>()) {
      const ir::DataType from = cast->value.dtype().element_of();
      if (from.is_uint() || from.is_bool()) return from.bits() < t.bits();
      return from.is_int() && from.bits() <= t.bits() && NonNegative(cast->value);
    }
    if (const auto* op = e.as<ir::AddNode>()) return NonNegative(op->a) && NonNegative(op->b);
    if (const auto* op = e.as<ir::MulNode>()) return NonNegative(op->a) && NonNegative(op->b);
    if (const auto* op = e.as<ir::MinNode>()) return NonNegative(op->a) && NonNegative(op->b);
    if (const auto* op = e.as<ir::MaxNode>()) return NonNegative(op->a) || NonNegative(op->b);
    if (const auto* op = e.as<ir::DivNode>()) return NonNegative(op->a) && NonNegative(op->b);
    if (const auto* op = e.as<ir::ModNode>()) return NonNegative(op->a) && NonNegative(op->b);
    if (const auto* op = e.as<ir::FloorDivNode>()) {
      const int64_t* c = ConstDivisor(op->b);
      return c && *c > 0 && NonNegative(op->a);
    }
    return false;
  }

  VarSet non_negative_;
};

}  // namespace

ir::Stmt LowerIntrinsics(ir::Stmt stmt) { return Lowerer().MutateStmt(stmt); }

}  // namespace tessel::transforms
