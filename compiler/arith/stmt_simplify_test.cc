#include "compiler/arith/stmt_simplify.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/arith/fuzz_support.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::Expr;
using ir::Stmt;
using ir::Var;

// Runs the statements these tests build and records what they do: every store (buffer, index,
// value) and every call_extern (name and arguments), in order. Independent of the simplifier;
// index arithmetic goes through fuzz_support.h's reference evaluator.
class Trace {
 public:
  explicit Trace(std::map<const ir::VarNode*, int64_t> params) {
    for (const auto& [var, value] : params) ev_.env[var] = value;
  }

  std::vector<std::string> Run(const Stmt& s) {
    Exec(s);
    return log_;
  }

 private:
  int64_t Eval(const Expr& e) {
    const int64_t v = ev_.Eval(e);
    EXPECT_FALSE(ev_.overflow || ev_.undefined) << e;
    return v;
  }

  void Exec(const Stmt& s) {
    if (const auto* op = s.as<ir::ForNode>()) {
      const int64_t lo = Eval(op->min), extent = Eval(op->extent);
      for (int64_t k = lo; k < lo + extent; ++k) {
        ev_.env[op->loop_var.get()] = k;
        Exec(op->body);
      }
      ev_.env.erase(op->loop_var.get());
    } else if (const auto* op = s.as<ir::IfThenElseNode>()) {
      if (Eval(op->condition)) {
        Exec(op->then_case);
      } else if (op->else_case.defined()) {
        Exec(op->else_case);
      }
    } else if (const auto* op = s.as<ir::SeqStmtNode>()) {
      for (const Stmt& t : op->seq) Exec(t);
    } else if (const auto* op = s.as<ir::BufferStoreNode>()) {
      log_.push_back(op->buffer.name() + "[" + std::to_string(Eval(op->indices[0])) +
                     "] = " + std::to_string(Eval(op->value)));
    } else if (const auto* op = s.as<ir::LetStmtNode>()) {
      ev_.env[op->var.get()] = Eval(op->value);
      Exec(op->body);
      ev_.env.erase(op->var.get());
    } else if (const auto* op = s.as<ir::AttrStmtNode>()) {
      const auto* iv = dynamic_cast<const ir::IterVarNode*>(op->node.get());
      if (iv && op->key == ir::attr::kThreadExtent) {
        // Threads run one after another here.
        const int64_t extent = Eval(op->value);
        for (int64_t k = 0; k < extent; ++k) {
          ev_.env[iv->var.get()] = k;
          Exec(op->body);
        }
        ev_.env.erase(iv->var.get());
      } else {
        Exec(op->body);
      }
    } else if (const auto* op = s.as<ir::AssertStmtNode>()) {
      if (!Eval(op->condition)) log_.push_back("assert failed: " + op->message);
      Exec(op->body);
    } else if (const auto* op = s.as<ir::EvaluateNode>()) {
      if (const auto* call = op->value.as<ir::CallNode>();
          call && call->op == ir::Intrinsic::kCallExtern) {
        std::string text = call->args[0].as<ir::StringImmNode>()->value + "(";
        for (size_t k = 1; k < call->args.size(); ++k)
          text += std::to_string(Eval(call->args[k])) + ",";
        log_.push_back(text + ")");
      } else {
        Eval(op->value);
      }
    } else {
      ADD_FAILURE() << "unexpected statement " << s;
    }
  }

  testing::ReferenceEvaluator ev_;
  std::vector<std::string> log_;
};

Expr Call(const std::string& name, std::vector<Expr> args) {
  args.insert(args.begin(), ir::StringImm(name));
  return ir::Call(ir::kInt32, ir::Intrinsic::kCallExtern, std::move(args));
}

class StmtSimplifyTest : public ::testing::Test {
 protected:
  // Simplifies s, checks it does exactly what s does for each parameter assignment, and returns
  // its text.
  std::string Check(const Stmt& s,
                    const std::vector<std::map<const ir::VarNode*, int64_t>>& params = {{}}) {
    const Stmt simplified = Simplify(s);
    for (const auto& p : params) {
      EXPECT_EQ(Trace(p).Run(simplified), Trace(p).Run(s)) << "before:\n"
                                                           << s << "after:\n"
                                                           << simplified;
    }
    return ir::ToString(simplified);
  }

  ir::Buffer a_ = ir::Buffer::Declare("A", {64}, ir::kInt32);
  Var i{"i"}, j{"j"}, k{"k"}, n{"n"};
};

TEST_F(StmtSimplifyTest, GuardsOfExactSplitsGo) {
  // for io, ii: if (io*4 + ii < 16) A[io*4 + ii] = io - ii
  const Expr index = ir::Add(ir::Mul(i, 4), j);
  const Stmt body = ir::IfThenElse(ir::LT(index, 16), ir::BufferStore(a_, ir::Sub(i, j), {index}));
  const Stmt s =
      ir::For(i, 0, 4, ir::ForKind::kSerial, ir::For(j, 0, 4, ir::ForKind::kSerial, body));
  EXPECT_EQ(Check(s),
            "for (i, 0, 4) {\n"
            "  for (j, 0, 4) {\n"
            "    A[((i * 4) + j)] = (i - j)\n"
            "  }\n"
            "}\n");
}

TEST_F(StmtSimplifyTest, GuardsOfInexactSplitsStay) {
  const Expr index = ir::Add(ir::Mul(i, 4), j);
  const Stmt body = ir::IfThenElse(ir::LT(index, 14), ir::BufferStore(a_, i, {index}),
                                   ir::BufferStore(a_, 0, {0}));
  const Stmt s =
      ir::For(i, 0, 4, ir::ForKind::kSerial, ir::For(j, 0, 4, ir::ForKind::kSerial, body));
  EXPECT_EQ(Check(s),
            "for (i, 0, 4) {\n"
            "  for (j, 0, 4) {\n"
            "    if ((((i * 4) + j) < 14)) {\n"
            "      A[((i * 4) + j)] = i\n"
            "    } else {\n"
            "      A[0] = 0\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST_F(StmtSimplifyTest, SymbolicLoopBounds) {
  // for i in [0, n): if (i < n) A[i] = 1 else A[0] = 2   -- the else can never run
  const Stmt s = ir::For(
      i, 0, n, ir::ForKind::kSerial,
      ir::IfThenElse(ir::LT(i, n), ir::BufferStore(a_, 1, {i}), ir::BufferStore(a_, 2, {0})));
  EXPECT_EQ(Check(s, {{{n.get(), 0}}, {{n.get(), 5}}}),
            "for (i, 0, n) {\n"
            "  A[i] = 1\n"
            "}\n");
}

TEST_F(StmtSimplifyTest, LoopsOfOneIteration) {
  const Stmt s = ir::For(i, 3, 1, ir::ForKind::kSerial,
                         ir::For(j, 0, ir::Sub(ir::Add(n, 1), n), ir::ForKind::kUnrolled,
                                 ir::BufferStore(a_, ir::Add(i, j), {ir::Mul(i, 2)})));
  EXPECT_EQ(Check(s, {{{n.get(), 7}}}), "A[6] = 3\n");
  // A thread binding keeps its loop even at extent 1.
  const Stmt t =
      ir::For(k, 0, 1, ir::ForKind::kThreadBinding, ir::BufferStore(a_, k, {k}), "threadIdx.x");
  EXPECT_EQ(Check(t), "for (k, 0, 1) thread_binding(\"threadIdx.x\") {\n  A[k] = k\n}\n");
}

TEST_F(StmtSimplifyTest, EmptyStatementsGo) {
  const Stmt store = ir::BufferStore(a_, 1, {2});
  const Stmt s = ir::SeqStmt({ir::Evaluate(0), ir::SeqStmt({}), store,
                              ir::For(i, 0, 8, ir::ForKind::kSerial, ir::Evaluate(ir::Add(i, 1))),
                              ir::IfThenElse(ir::LT(n, 3), ir::SeqStmt({}))});
  EXPECT_EQ(Check(s, {{{n.get(), 1}}}), "A[2] = 1\n");
  EXPECT_EQ(Check(ir::SeqStmt({ir::Evaluate(0), ir::Evaluate(ir::Mul(n, 2))}), {{{n.get(), 1}}}),
            "");
  // An impure call stays, wherever it is.
  const Stmt call = ir::Evaluate(Call("tick", {i}));
  EXPECT_EQ(Check(ir::For(i, 0, 2, ir::ForKind::kSerial, ir::SeqStmt({call, ir::Evaluate(0)}))),
            "for (i, 0, 2) {\n  call_extern(\"tick\", i)\n}\n");
}

TEST_F(StmtSimplifyTest, BranchesNegateWhenOnlyElseRemains) {
  const Stmt s = ir::IfThenElse(ir::LT(n, 3), ir::Evaluate(0), ir::BufferStore(a_, n, {0}));
  EXPECT_EQ(Check(s, {{{n.get(), 1}}, {{n.get(), 5}}}), "if ((3 <= n)) {\n  A[0] = n\n}\n");
}

TEST_F(StmtSimplifyTest, LetStatements) {
  Var v("v"), w("w"), u("u");
  // An immediate is inlined; an unused value is dropped; a used one binds its facts.
  const Stmt s =
      ir::LetStmt(v, 4,
                  ir::LetStmt(u, ir::Mul(n, 3),
                              ir::LetStmt(w, ir::Mul(n, 8),
                                          ir::SeqStmt({ir::BufferStore(a_, ir::FloorMod(w, 4), {v}),
                                                       ir::BufferStore(a_, w, {1})}))));
  EXPECT_EQ(Check(s, {{{n.get(), 2}}}),
            "let w = (n * 8)\n"
            "A[4] = 0\n"
            "A[1] = w\n");
}

TEST_F(StmtSimplifyTest, ThreadExtentsBindTheirVariables) {
  ir::IterVar tx(Var("tx"), ir::Range{0, 32}, ir::IterVarType::kThreadIndex, "threadIdx.x");
  const Stmt body = ir::IfThenElse(ir::LT(tx.var(), 32), ir::BufferStore(a_, tx.var(), {tx.var()}));
  const Stmt s = ir::AttrStmt(Ref<const Object>(tx.get()), ir::attr::kThreadExtent, 32, body);
  EXPECT_EQ(Check(s), "attr [tx] thread_extent = 32 {\n  A[tx] = tx\n}\n");
}

TEST_F(StmtSimplifyTest, Asserts) {
  const Stmt s =
      ir::For(i, 0, 8, ir::ForKind::kSerial,
              ir::AssertStmt(ir::LT(i, 8), "in range",
                             ir::AssertStmt(ir::LT(i, n), "below n", ir::BufferStore(a_, i, {i}))));
  EXPECT_EQ(Check(s, {{{n.get(), 4}}, {{n.get(), 9}}}),
            "for (i, 0, 8) {\n"
            "  assert((i < n), \"below n\")\n"
            "  A[i] = i\n"
            "}\n");
}

TEST_F(StmtSimplifyTest, LoopBoundsAndIndicesSimplify) {
  // A fused loop split back: the index arithmetic collapses and the tail guard goes.
  Var fused("fused");
  const Expr outer = ir::FloorDiv(fused, 8), inner = ir::FloorMod(fused, 8);
  const Stmt body = ir::IfThenElse(
      ir::LT(ir::Add(ir::Mul(outer, 8), inner), 64),
      ir::BufferStore(a_, ir::Add(ir::Mul(outer, 8), inner), {ir::Add(ir::Mul(outer, 8), inner)}));
  const Stmt s = ir::For(fused, ir::Sub(n, n), ir::Mul(8, 8), ir::ForKind::kParallel, body);
  EXPECT_EQ(Check(s, {{{n.get(), 3}}}),
            "for (fused, 0, 64) parallel {\n"
            "  A[fused] = fused\n"
            "}\n");
}

TEST_F(StmtSimplifyTest, KeepsWhatItCannotProve) {
  const Stmt s = ir::For(i, 0, n, ir::ForKind::kSerial,
                         ir::IfThenElse(ir::LT(ir::Add(i, 1), n), ir::BufferStore(a_, i, {i})));
  EXPECT_EQ(Check(s, {{{n.get(), 3}}}),
            "for (i, 0, n) {\n"
            "  if (((i + 1) < n)) {\n"
            "    A[i] = i\n"
            "  }\n"
            "}\n");
  // Unchanged statements come back as the same node.
  EXPECT_TRUE(Simplify(s).same_as(s));
}

TEST_F(StmtSimplifyTest, OuterFactsHold) {
  Analyzer analyzer;
  analyzer.Bind(n, ir::Range{16, 1});  // n == 16
  const Stmt s = ir::For(i, 0, n, ir::ForKind::kSerial,
                         ir::IfThenElse(ir::LT(i, 16), ir::BufferStore(a_, i, {i})));
  EXPECT_EQ(ir::ToString(Simplify(s, &analyzer)), "for (i, 0, n) {\n  A[i] = i\n}\n");
  // The analyzer is as it was.
  EXPECT_EQ(analyzer.ConstIntBound(i).ToString(), "[-2147483648, 2147483647]");
}

}  // namespace
}  // namespace tessel::arith
