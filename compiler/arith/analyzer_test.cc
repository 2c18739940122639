#include "compiler/arith/analyzer.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::Expr;
using ir::Var;

TEST(AnalyzerTest, BindRange) {
  Analyzer analyzer;
  Var i("i"), n("n");
  analyzer.Bind(i, ir::Range{4, 8});
  EXPECT_EQ(analyzer.ConstIntBound(i).ToString(), "[4, 11]");
  EXPECT_TRUE(analyzer.CanProve(ir::LT(i, 12)));
  EXPECT_FALSE(analyzer.CanProve(ir::LT(i, 11)));
  EXPECT_TRUE(analyzer.CanProveGreaterEqual(i, 4));
  EXPECT_FALSE(analyzer.CanProveGreaterEqual(i, 5));
  EXPECT_TRUE(analyzer.CanProveLess(ir::Sub(i, 4), 8));
  // A symbolic extent: constant bounds from n's, and proofs through the symbolic end.
  Var j("j");
  analyzer.Bind(n, ir::Range{1, 128});
  analyzer.Bind(j, ir::Range{0, n});
  EXPECT_EQ(analyzer.ConstIntBound(j).ToString(), "[0, 127]");
  EXPECT_TRUE(analyzer.CanProve(ir::LT(j, n)));
  EXPECT_TRUE(analyzer.CanProve(ir::LE(ir::Add(j, 1), n)));
  EXPECT_FALSE(analyzer.CanProve(ir::LT(ir::Add(j, 1), n)));
  EXPECT_TRUE(analyzer.CanProveGreaterEqual(ir::Sub(n, j), 1));
}

TEST(AnalyzerTest, BindValueSubstitutes) {
  Analyzer analyzer;
  Var x("x"), i("i");
  analyzer.Bind(i, ir::Range{0, 8});
  analyzer.Bind(x, ir::Add(ir::Mul(i, 4), 1));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Add(x, 2))), "((i * 4) + 3)");
  EXPECT_EQ(analyzer.ConstIntBound(x).ToString(), "[1, 29]");
  EXPECT_EQ(analyzer.ModularSet(x).ToString(), "4k+1");
  EXPECT_TRUE(analyzer.CanProveEqual(ir::FloorMod(x, 4), 1));
}

TEST(AnalyzerTest, BindFactsKeepsTheVariable) {
  Analyzer analyzer;
  Var x("x"), i("i");
  analyzer.Bind(i, ir::Range{0, 8});
  analyzer.BindFacts(x, ir::Mul(i, 4));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Add(x, 2))), "(x + 2)");
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::FloorMod(x, 4))), "0");
  EXPECT_TRUE(analyzer.CanProve(ir::LT(x, 29)));
}

TEST(AnalyzerTest, ScopesUndoTheirBindings) {
  Analyzer analyzer;
  Var i("i"), x("x");
  analyzer.Bind(i, ir::Range{0, 100});
  {
    Analyzer::Scope loop(&analyzer, i, ir::Range{0, 4});
    EXPECT_EQ(analyzer.ConstIntBound(i).ToString(), "[0, 3]");
    {
      Analyzer::Scope inner(&analyzer);
      analyzer.Bind(x, ir::IntImm(ir::kInt32, 5));
      EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Add(x, i))), "(i + 5)");
    }
    EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Add(x, i))), "(i + x)");
  }
  EXPECT_EQ(analyzer.ConstIntBound(i).ToString(), "[0, 99]");
}

TEST(AnalyzerTest, VariablesAreKeyedByIdentity) {
  Analyzer analyzer;
  Var a("i"), b("i");  // two variables that share a name
  analyzer.Bind(a, ir::Range{0, 4});
  EXPECT_EQ(analyzer.ConstIntBound(a).ToString(), "[0, 3]");
  EXPECT_EQ(analyzer.ConstIntBound(b).ToString(), "[-2147483648, 2147483647]");
  EXPECT_TRUE(analyzer.CanProve(ir::LT(a, 4)));
  EXPECT_FALSE(analyzer.CanProve(ir::LT(b, 4)));
  EXPECT_EQ(ir::ToString(analyzer.Simplify(ir::Sub(a, b))), "(i - i_1)");
}

TEST(AnalyzerTest, EmptyRangeStillBinds) {
  Analyzer analyzer;
  Var i("i");
  analyzer.Bind(i, ir::Range{3, 0});  // a loop whose body never runs
  EXPECT_EQ(analyzer.ConstIntBound(i).ToString(), "[3, 3]");
}

TEST(AnalyzerTest, SimplifyReturnsTheSameNodeWhenNothingChanges) {
  Analyzer analyzer;
  Var x("x"), y("y");
  const Expr e = ir::Add(ir::Mul(x, 4), y);
  EXPECT_TRUE(analyzer.Simplify(e).same_as(e));
  const Expr f = ir::Add(y, ir::Mul(x, 4));
  EXPECT_FALSE(analyzer.Simplify(f).same_as(f));
}

TEST(AnalyzerTest, EvalSetUsesTheFacts) {
  Analyzer analyzer;
  Var i("i"), n("n");
  analyzer.Bind(n, ir::Range{1, 16});
  const IntSet s = analyzer.EvalSet(ir::FloorMod(i, n), {{i.get(), IntSet::Interval(0, 100)}});
  EXPECT_EQ(s.ToString(), "[0, (n - 1)]");
}

}  // namespace
}  // namespace tessel::arith
