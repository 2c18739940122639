// RenewDefs and UsesVar, the helpers the duplicating passes share: a statement and its renewed
// copy side by side stay well formed, substitution reaches buffer shapes, free variables stay.
// Also checks that SameOutputs (test_util.h) reports a difference.
#include "compiler/transforms/renew_defs.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/test_util.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using testing::MakeFunc;
using testing::SameOutputs;
using testing::Text;
using testing::WellFormed;

TEST(RenewDefsTest, CopyBindsFreshVariablesAndSubstitutesFreeOnes) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Var n("n"), i("i"), x("x"), y("y"), tx("tx");
  Buffer t = Buffer::Declare("T", {n + 1}, kInt32, "local");
  IterVar thread(tx, {0, 2}, IterVarType::kThreadIndex, "threadIdx.x");
  Stmt s = AttrStmt(Ref<const Object>(thread.get()), attr::kThreadExtent, 2,
                    Allocate(t, For(i, 0, n, ForKind::kSerial,
                                    LetStmt(x, BufferLoad(a, {i}) + tx,
                                            SeqStmt({BufferStore(t, x + Let(y, x * 2, y + y), {i}),
                                                     BufferStore(a, BufferLoad(t, {i}), {i})})))));
  Stmt copy = RenewDefs(s, {{n.get(), Expr(3)}});
  EXPECT_EQ(ToString(copy),
            "attr [tx] thread_extent = 2 {\n"
            "  allocate T: int32[(3 + 1)] scope \"local\" {\n"
            "    for (i, 0, 3) {\n"
            "      let x = (A[i] + tx)\n"
            "      T[i] = (x + (let y = (x * 2) in (y + y)))\n"
            "      A[i] = T[i]\n"
            "    }\n"
            "  }\n"
            "}\n");
  // Original and copy together: every binding is distinct.
  PrimFunc both = MakeFunc("f", {a}, {n}, SeqStmt({s, RenewDefs(s)}));
  EXPECT_TRUE(WellFormed(both));
  EXPECT_NE(Text(both).find("allocate T_1: int32[(n + 1)]"), std::string::npos) << Text(both);
  EXPECT_NE(Text(both).find("let x_1 = (A[i_1] + tx_1)"), std::string::npos) << Text(both);
}

TEST(UsesVarTest, CountsVariablesBufferDataAndAllocationSizes) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Var i("i"), n("n");
  Buffer t = Buffer::Declare("T", {n}, kInt32);
  Stmt store = BufferStore(a, Expr(1), {0});
  EXPECT_TRUE(UsesVar(store, {a->data.get()}));
  EXPECT_FALSE(UsesVar(store, {i.get()}));
  EXPECT_TRUE(UsesVar(Allocate(t, Evaluate(0)), {n.get()}));
  EXPECT_TRUE(UsesVar(BufferLoad(a, {i}), {i.get()}));
  EXPECT_FALSE(DataEscapes(store, a->data.get()));
  EXPECT_TRUE(DataEscapes(Evaluate(Call(kInt32, Intrinsic::kCallExtern, {StringImm("f"), a->data})),
                          a->data.get()));
}

TEST(SameOutputsTest, ReportsTheFirstDifferentElement) {
  Buffer a = Buffer::Declare("A", {4}, kInt32);
  Var i("i");
  PrimFunc f = MakeFunc("f", {a}, {}, For(i, 0, 4, ForKind::kSerial, BufferStore(a, i, {i})));
  PrimFunc g =
      MakeFunc("g", {a}, {}, For(i, 0, 4, ForKind::kSerial, BufferStore(a, i * (i - 2), {i})));
  ::testing::AssertionResult same = SameOutputs(f, g, 0);
  ASSERT_FALSE(same);
  EXPECT_STREQ(same.message(), "A[1]: before 1, after -1");
  EXPECT_TRUE(SameOutputs(f, f, 0));
}

}  // namespace
}  // namespace tessel::transforms
