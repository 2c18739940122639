#include "compiler/transforms/loop_partition.h"

#include <unordered_map>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/arith/int_set.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/transforms/renew_defs.h"

namespace tessel::transforms {
namespace {

using ir::Expr;
using ir::Stmt;

// The conjuncts of c, each as an expression e meaning "e < 0"; empty if c is not of that form.
bool NegativeForms(const Expr& c, std::vector<Expr>* out) {
  if (const auto* a = c.as<ir::AndNode>())
    return NegativeForms(a->a, out) && NegativeForms(a->b, out);
  if (const auto* lt = c.as<ir::LTNode>()) return out->push_back(lt->a - lt->b), true;
  if (const auto* le = c.as<ir::LENode>()) return out->push_back(le->a - le->b - 1), true;
  if (const auto* gt = c.as<ir::GTNode>()) return out->push_back(gt->b - gt->a), true;
  if (const auto* ge = c.as<ir::GENode>()) return out->push_back(ge->b - ge->a - 1), true;
  return false;
}

// The guards a loop's body holds, with the loops between the loop and each guard.
struct Guard {
  const ir::IfThenElseNode* node;
  Expr condition;  // inside likely()
  std::vector<const ir::ForNode*> inner_loops;
};

void FindGuards(const Stmt& s, std::vector<const ir::ForNode*>& loops, std::vector<Guard>& out) {
  if (const auto* f = s.as<ir::ForNode>()) {
    loops.push_back(f);
    FindGuards(f->body, loops, out);
    loops.pop_back();
  } else if (const auto* seq = s.as<ir::SeqStmtNode>()) {
    for (const Stmt& c : seq->seq) FindGuards(c, loops, out);
  } else if (const auto* let = s.as<ir::LetStmtNode>()) {
    FindGuards(let->body, loops, out);
  } else if (const auto* attr = s.as<ir::AttrStmtNode>()) {
    FindGuards(attr->body, loops, out);
  } else if (const auto* branch = s.as<ir::IfThenElseNode>()) {
    const auto* call = branch->condition.as<ir::CallNode>();
    if (call && call->op == ir::Intrinsic::kLikely && !branch->else_case.defined()) {
      out.push_back({branch, call->args[0], loops});
    }
  }
}

// Replaces the given guards by their then branches.
class DropGuards : public ir::IRMutator {
 public:
  explicit DropGuards(std::vector<const ir::IfThenElseNode*> guards) : guards_(std::move(guards)) {}

 protected:
  Stmt Mutate_(const ir::IfThenElseNode* op, const Stmt& self) override {
    for (const ir::IfThenElseNode* g : guards_) {
      if (g == op) return MutateStmt(op->then_case);
    }
    return IRMutator::Mutate_(op, self);
  }

 private:
  std::vector<const ir::IfThenElseNode*> guards_;
};

class Partitioner : public ir::IRMutator {
 protected:
  Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
    if (op->for_kind == ir::ForKind::kSerial) {
      if (Stmt split = Partition(op); split.defined()) return split;
    }
    arith::Analyzer::Scope scope(&analyzer_, op->loop_var, ir::Range{op->min, op->extent});
    return IRMutator::Mutate_(op, self);
  }

 private:
  // The partitioned loop, or undefined when no guard allows it.
  Stmt Partition(const ir::ForNode* op) {
    std::vector<const ir::ForNode*> loops;
    std::vector<Guard> guards;
    FindGuards(op->body, loops, guards);
    const ir::Var& v = op->loop_var;
    std::vector<const ir::IfThenElseNode*> dropped;
    Expr point;  // the first v where some kept guard may fail
    for (const Guard& g : guards) {
      std::vector<Expr> forms;
      if (!NegativeForms(g.condition, &forms)) continue;
      Expr guard_point;
      bool ok = true;
      for (const Expr& form : forms) {
        Expr p = PrefixEnd(form, v, g.inner_loops);
        if (!p.defined()) {
          ok = false;
          break;
        }
        guard_point = guard_point.defined() ? ir::min(guard_point, p) : p;
      }
      if (!ok || !guard_point.defined()) continue;
      point = point.defined() ? ir::min(point, guard_point) : guard_point;
      dropped.push_back(g.node);
    }
    if (dropped.empty()) return Stmt();
    const Expr end = op->min + op->extent;
    point = analyzer_.Simplify(ir::max(op->min, ir::min(point, end)));
    if (analyzer_.CanProve(point == op->min)) return Stmt();  // nothing to gain
    Stmt main = ir::For(v, op->min, analyzer_.Simplify(point - op->min), op->for_kind,
                        DropGuards(dropped).MutateStmt(op->body));
    if (analyzer_.CanProve(point >= end)) return MutateStmt(main);
    // The tail keeps its guards; it starts where they may fail, so it is not split again.
    Stmt tail =
        RenewDefs(ir::For(v, point, analyzer_.Simplify(end - point), op->for_kind, op->body));
    return ir::SeqStmt({MutateStmt(main), MutateStmt(tail)});
  }

  // For "form < 0": the end of the prefix of v on which it holds for all inner loop values, or
  // undefined when its upper bound is not a * v + r with a a positive constant.
  Expr PrefixEnd(const Expr& form, const ir::Var& v,
                 const std::vector<const ir::ForNode*>& inner_loops) {
    arith::IntSetMap dom;
    for (const ir::ForNode* f : inner_loops) {
      dom.emplace(f->loop_var.get(), arith::IntSet::FromRange(ir::Range{f->min, f->extent}));
    }
    arith::IntSet set = analyzer_.EvalSet(form, dom);
    if (!set.HasUpperBound()) return Expr();
    const Expr upper = analyzer_.Simplify(set.max());
    const Expr r = analyzer_.Simplify(ir::Substitute(upper, {{v.get(), ir::MakeZero(v.dtype())}}));
    const Expr a =
        analyzer_.Simplify(ir::Substitute(upper, {{v.get(), ir::MakeConst(v.dtype(), 1)}}) - r);
    const int64_t* coefficient = ir::AsConstInt(a);
    if (!coefficient || *coefficient <= 0) return Expr();
    if (!analyzer_.CanProve(upper == a * v + r)) return Expr();
    // a * v + r < 0  <=>  v < ceil(-r / a)  <=>  v < floordiv(-r + a - 1, a).
    return analyzer_.Simplify(ir::floordiv(a - 1 - r, a));
  }

  arith::Analyzer analyzer_;
};

}  // namespace

Stmt LoopPartition(const Stmt& stmt) { return Partitioner().MutateStmt(stmt); }

}  // namespace tessel::transforms
