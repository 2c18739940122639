#include "compiler/ir/structural_equal.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/well_formed.h"

namespace tessel::ir {
namespace {

Stmt Loop(const Buffer& A, const char* name) {
  Var i(name);
  return For(i, 0, 8, ForKind::kSerial, BufferStore(A, BufferLoad(A, {i}) + 1.0f, {i}));
}

TEST(StructuralEqualTest, BoundVariablesCompareByPosition) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  Stmt a = Loop(A, "i"), b = Loop(A, "j");
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  Buffer B = Buffer::Declare("A", {8}, kFloat32);  // same name, another buffer
  EXPECT_FALSE(StructuralEqual(a, Loop(B, "i")));
  EXPECT_TRUE(StructuralEqual(a, Loop(B, "i"), /*map_free_vars=*/true));
}

TEST(StructuralEqualTest, FreeVariablesNeedIdentityOrAConsistentMap) {
  Var x("x"), y("y"), z("x");
  EXPECT_TRUE(StructuralEqual(x + y, x + y));
  EXPECT_FALSE(StructuralEqual(x + y, z + y));
  EXPECT_TRUE(StructuralEqual(x + y, z + y, true));
  EXPECT_FALSE(StructuralEqual(x + y, x + x, true));  // x and y cannot both map to x
  EXPECT_FALSE(StructuralEqual(x + 1, x + 2));
  EXPECT_NE(StructuralHash(x + 1), StructuralHash(x + 2));
  EXPECT_FALSE(StructuralEqual(x + 1, cast(kInt64, x) + 1));
}

TEST(StructuralEqualTest, AbsentElseBranchesInsideALoopAreEqual) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  auto loop = [&](const char* name) {
    Var i(name);
    return For(i, 0, 8, ForKind::kSerial, IfThenElse(i < 4, BufferStore(A, 1.0f, {i})));
  };
  EXPECT_TRUE(StructuralEqual(loop("i"), loop("j")));
}

TEST(WellFormedTest, AcceptsAWellFormedFunction) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  EXPECT_TRUE(VerifyWellFormed(PrimFunc("f", {A->data}, {A}, Loop(A, "i"))).ok());
}

TEST(WellFormedTest, UseOutsideScopeIsNamed) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  Var i("i");
  Stmt loop = For(i, 0, 8, ForKind::kSerial, BufferStore(A, 1.0f, {i}));
  Stmt after = BufferStore(A, 2.0f, {i});
  absl::Status s = VerifyWellFormed(PrimFunc("f", {A->data}, {A}, SeqStmt({loop, after})));
  EXPECT_EQ(s.message(), "variable i is used undefined");
}

TEST(WellFormedTest, VariableBoundTwiceIsNamed) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  Var i("i");
  Stmt loop = For(i, 0, 8, ForKind::kSerial, BufferStore(A, 1.0f, {i}));
  absl::Status s = VerifyWellFormed(PrimFunc("f", {A->data}, {A}, SeqStmt({loop, loop})));
  EXPECT_EQ(s.message(), "variable i is defined twice (again by a loop)");
}

TEST(WellFormedTest, AccessOutsideAllocationAndWrongRankAreNamed) {
  Buffer A = Buffer::Declare("A", {8}, kFloat32);
  Buffer T = Buffer::Declare("T", {8}, kFloat32, "local");
  absl::Status s = VerifyWellFormed(PrimFunc("f", {A->data}, {A}, BufferStore(T, 1.0f, {0})));
  EXPECT_EQ(s.message(), "store to buffer T outside its allocation");
  Buffer M = Buffer::Declare("M", {4, 4, 4}, kFloat32);
  s = VerifyWellFormed(PrimFunc("f", {M->data}, {M}, BufferStore(M, 1.0f, {0, 1})));
  EXPECT_EQ(s.message(), "store to M with 2 indices; it has 3 dimensions");
}

}  // namespace
}  // namespace tessel::ir
