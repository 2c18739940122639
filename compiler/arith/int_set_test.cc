#include "compiler/arith/int_set.h"

#include <gtest/gtest.h>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessel::arith {
namespace {

using ir::Expr;
using ir::Var;

class IntSetTest : public ::testing::Test {
 protected:
  std::string Eval(const Expr& e) { return EvalSet(e, dom_, analyzer_).ToString(); }

  Var i{"i"}, j{"j"}, k{"k"}, n{"n"}, m{"m"};
  Analyzer analyzer_;
  IntSetMap dom_{{i.get(), IntSet::Interval(0, 15)},
                 {j.get(), IntSet::Interval(0, 3)},
                 {k.get(), IntSet::Interval(-4, 4)}};
};

TEST_F(IntSetTest, Kinds) {
  EXPECT_EQ(IntSet::Everything().ToString(), "everything");
  EXPECT_EQ(IntSet::Nothing().ToString(), "nothing");
  EXPECT_EQ(IntSet::Single(n).ToString(), "[n, n]");
  EXPECT_TRUE(IntSet::Single(n).IsSinglePoint());
  EXPECT_EQ(IntSet::Interval(Expr(), n).ToString(), "(-inf, n]");
  EXPECT_EQ(IntSet::Interval(0, Expr()).ToString(), "[0, +inf)");
  EXPECT_EQ(IntSet::FromRange({2, n}).ToString(), "[2, ((2 + n) - 1)]");
  EXPECT_EQ(IntSet::FromRange({0, n}).ToString(), "[0, (n - 1)]");
  EXPECT_EQ(IntSet::FromRange({0, 16}).ToString(), "[0, 15]");
  EXPECT_TRUE(IntSet::Everything().IsEverything());
  EXPECT_FALSE(IntSet::Nothing().HasLowerBound());
}

TEST_F(IntSetTest, UnionAndIntersect) {
  EXPECT_EQ(Union(IntSet::Interval(0, 4), IntSet::Interval(2, 9), analyzer_).ToString(), "[0, 9]");
  EXPECT_EQ(Union(IntSet::Interval(0, n), IntSet::Interval(1, n), analyzer_).ToString(), "[0, n]");
  EXPECT_EQ(Union(IntSet::Nothing(), IntSet::Single(n), analyzer_).ToString(), "[n, n]");
  EXPECT_EQ(Union(IntSet::Interval(Expr(), 3), IntSet::Interval(0, 9), analyzer_).ToString(),
            "(-inf, 9]");
  EXPECT_EQ(Intersect(IntSet::Interval(0, 4), IntSet::Interval(2, 9), analyzer_).ToString(),
            "[2, 4]");
  EXPECT_EQ(Intersect(IntSet::Interval(0, 4), IntSet::Interval(5, 9), analyzer_).ToString(),
            "nothing");
  EXPECT_EQ(Intersect(IntSet::Everything(), IntSet::Interval(0, n), analyzer_).ToString(),
            "[0, n]");
}

TEST_F(IntSetTest, LinearIndices) {
  EXPECT_EQ(Eval(ir::Add(ir::Mul(i, 4), j)), "[0, 63]");
  EXPECT_EQ(Eval(ir::Sub(i, j)), "[-3, 15]");
  EXPECT_EQ(Eval(ir::Mul(k, -3)), "[-12, 12]");
  EXPECT_EQ(Eval(ir::Sub(i, i)), "[0, 0]");  // simplified before it is evaluated
  EXPECT_EQ(Eval(ir::Add(ir::Mul(i, 4), n)), "[n, (n + 60)]");
  EXPECT_EQ(Eval(n), "[n, n]");
  IntSetMap raw{{i.get(), IntSet::Interval(ir::Add(n, 0), ir::Sub(ir::Add(n, 4), 1))}};
  EXPECT_EQ(EvalSet(i, raw, analyzer_).ToString(), "[n, (n + 3)]");
  EXPECT_EQ(Eval(ir::Mul(i, j)), "[0, 45]");
  EXPECT_EQ(Eval(ir::Mul(k, k)), "[-16, 16]");
}

TEST_F(IntSetTest, Division) {
  EXPECT_EQ(Eval(ir::FloorDiv(ir::Add(ir::Mul(i, 4), j), 4)), "[0, 15]");
  EXPECT_EQ(Eval(ir::FloorDiv(i, 4)), "[0, 3]");
  EXPECT_EQ(Eval(ir::FloorDiv(k, 3)), "[-2, 1]");
  EXPECT_EQ(Eval(ir::FloorDiv(k, -3)), "[-2, 1]");
  EXPECT_EQ(Eval(ir::Div(k, 3)), "[-1, 1]");
  EXPECT_EQ(Eval(ir::FloorMod(i, 4)), "[0, 3]");
  EXPECT_EQ(Eval(ir::FloorMod(ir::Add(j, 4), 8)), "[4, 7]");  // one block of 8
  EXPECT_EQ(Eval(ir::FloorMod(k, -3)), "[-2, 0]");
  EXPECT_EQ(Eval(ir::Mod(k, 3)), "[-2, 2]");
  EXPECT_EQ(Eval(ir::Mod(i, 6)), "[0, 5]");
  // A symbolic divisor known to be positive.
  analyzer_.Bind(n, ir::Range{1, 64});
  EXPECT_EQ(Eval(ir::FloorDiv(i, n)), "[0, floordiv(15, n)]");
  EXPECT_EQ(Eval(ir::FloorMod(i, n)), "[0, (n - 1)]");
}

TEST_F(IntSetTest, MinMaxSelectCompare) {
  EXPECT_EQ(Eval(ir::Min(i, 8)), "[0, 8]");
  EXPECT_EQ(Eval(ir::Max(ir::Mul(i, 2), k)), "[0, 30]");
  EXPECT_EQ(Eval(ir::Min(i, n)), "[min(n, 0), min(n, 15)]");
  EXPECT_EQ(Eval(ir::Select(ir::LT(i, 20), j, k)), "[0, 3]");  // condition decided over the set
  EXPECT_EQ(Eval(ir::Select(ir::LT(i, 4), j, k)), "[-4, 4]");
  EXPECT_EQ(Eval(ir::Cast(ir::kInt32, ir::LT(i, 4))), "[0, 1]");
  EXPECT_EQ(Eval(ir::if_then_else(ir::GE(j, 0), i, k)), "[0, 15]");
}

TEST_F(IntSetTest, SymbolicDomains) {
  IntSetMap dom{{i.get(), IntSet::Interval(0, ir::Sub(n, 1))}, {j.get(), IntSet::Interval(0, 3)}};
  EXPECT_EQ(EvalSet(ir::Add(ir::Mul(i, 4), j), dom, analyzer_).ToString(), "[0, ((n * 4) - 1)]");
  // i outer, j inner after a split by 8: the fused index covers [m*8, m*8 + 7].
  IntSetMap inner{{j.get(), IntSet::Interval(0, 7)}};
  EXPECT_EQ(EvalSet(ir::Add(ir::Mul(m, 8), j), inner, analyzer_).ToString(),
            "[(m * 8), ((m * 8) + 7)]");
  EXPECT_EQ(EvalSet(ir::FloorDiv(ir::Add(ir::Mul(m, 8), j), 8), inner, analyzer_).ToString(),
            "[m, m]");
  EXPECT_EQ(EvalSet(ir::FloorMod(ir::Add(ir::Mul(m, 8), j), 8), inner, analyzer_).ToString(),
            "[0, 7]");
}

TEST_F(IntSetTest, VectorsAndLets) {
  EXPECT_EQ(Eval(ir::Ramp(ir::Mul(i, 4), 1, 4)), "[0, 63]");
  EXPECT_EQ(Eval(ir::Broadcast(j, 4)), "[0, 3]");
  EXPECT_EQ(EvalSet(ir::Ramp(ir::Mul(m, 4), 1, 4), {}, analyzer_).ToString(),
            "[(m * 4), ((m * 4) + 3)]");
  Var v("v");
  EXPECT_EQ(Eval(ir::Let(v, ir::Mul(i, 2), ir::Add(v, j))), "[0, 33]");
}

TEST_F(IntSetTest, OverflowingEndsAreUnbounded) {
  IntSetMap dom{{i.get(), IntSet::Interval(0, 100000)}};
  EXPECT_EQ(EvalSet(ir::Mul(i, 100000), dom, analyzer_).ToString(), "[0, +inf)");
}

TEST_F(IntSetTest, Ranges) {
  EXPECT_EQ(ir::ToString(ToRange(IntSet::Interval(2, 9), analyzer_).extent), "8");
  const ir::Range r =
      ToRange(IntSet::Interval(ir::Mul(m, 8), ir::Add(ir::Mul(m, 8), 7)), analyzer_);
  EXPECT_EQ(ir::ToString(r.min), "(m * 8)");
  EXPECT_EQ(ir::ToString(r.extent), "8");
  const ir::Range cover = CoverRange(IntSet::Interval(Expr(), 9), ir::Range{0, n}, analyzer_);
  EXPECT_EQ(ir::ToString(cover.min), "0");
  EXPECT_EQ(ir::ToString(cover.extent), "10");
  const ir::Range none = CoverRange(IntSet::Nothing(), ir::Range{0, n}, analyzer_);
  EXPECT_EQ(ir::ToString(none.extent), "0");
}

}  // namespace
}  // namespace tessel::arith
