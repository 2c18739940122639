// Unroll: printed IR before/after, well-formedness (every copy binds fresh variables), the
// interpreter's results before and after, and the error for a non-constant extent.
#include "compiler/transforms/unroll.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/transforms/test_util.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using testing::MakeFunc;
using testing::SameOutputs;
using testing::Text;
using testing::WellFormed;

PrimFunc UnrollChecked(const PrimFunc& f, int auto_max_extent = 0) {
  absl::StatusOr<Stmt> body = Unroll(f->body, auto_max_extent);
  EXPECT_TRUE(body.ok()) << body.status();
  if (!body.ok()) return f;
  PrimFunc out = f.WithBody(*body);
  EXPECT_TRUE(WellFormed(out));
  for (uint32_t seed = 0; seed < 3; ++seed) EXPECT_TRUE(SameOutputs(f, out, seed));
  return out;
}

TEST(UnrollTest, CopiesTheBodyWithTheVariableReplacedAndBindingsRenewed) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Buffer b = Buffer::Declare("B", {8}, kInt32);
  Var i("i"), x("x");
  Stmt body = For(i, 2, 3, ForKind::kUnrolled,
                  LetStmt(x, BufferLoad(a, {i}), BufferStore(b, x * 2 + i, {i})));
  PrimFunc out = UnrollChecked(MakeFunc("f", {a, b}, {}, body));
  EXPECT_EQ(Text(out),
            "let x = A[2]\n"
            "B[2] = ((x * 2) + 2)\n"
            "let x_1 = A[3]\n"
            "B[3] = ((x_1 * 2) + 3)\n"
            "let x_2 = A[4]\n"
            "B[4] = ((x_2 * 2) + 4)\n");
}

TEST(UnrollTest, InnerLoopsAndAllocationsGetFreshVariablesPerCopy) {
  Buffer a = Buffer::Declare("A", {2, 3}, kFloat32);
  Buffer t = Buffer::Declare("T", {3}, kFloat32, "local");
  Var i("i"), j("j"), j2("j");
  Stmt body = For(i, 0, 2, ForKind::kUnrolled,
                  Allocate(t, SeqStmt({For(j, 0, 3, ForKind::kSerial,
                                           BufferStore(t, BufferLoad(a, {i, j}) + 1.0f, {j})),
                                       For(j2, 0, 3, ForKind::kSerial,
                                           BufferStore(a, BufferLoad(t, {2 - j2}), {i, j2}))})));
  PrimFunc out = UnrollChecked(MakeFunc("f", {a}, {}, body));
  EXPECT_EQ(Text(out),
            "allocate T: float32[3] scope \"local\" {\n"
            "  for (j, 0, 3) {\n"
            "    T[j] = (A[0, j] + 1.0f)\n"
            "  }\n"
            "  for (j_1, 0, 3) {\n"
            "    A[0, j_1] = T[(2 - j_1)]\n"
            "  }\n"
            "}\n"
            "allocate T_1: float32[3] scope \"local\" {\n"
            "  for (j_2, 0, 3) {\n"
            "    T_1[j_2] = (A[1, j_2] + 1.0f)\n"
            "  }\n"
            "  for (j_3, 0, 3) {\n"
            "    A[1, j_3] = T_1[(2 - j_3)]\n"
            "  }\n"
            "}\n");
}

TEST(UnrollTest, NestedUnrolledLoopsUnrollInnermostFirst) {
  Buffer a = Buffer::Declare("A", {2, 2}, kInt32);
  Var i("i"), j("j");
  Stmt body = For(i, 0, 2, ForKind::kUnrolled,
                  For(j, 0, 2, ForKind::kUnrolled, BufferStore(a, i * 2 + j, {i, j})));
  PrimFunc out = UnrollChecked(MakeFunc("f", {a}, {}, body));
  // Substitution does not fold: the simplifier does that later.
  EXPECT_EQ(Text(out),
            "A[0, 0] = ((0 * 2) + 0)\n"
            "A[0, 1] = ((0 * 2) + 1)\n"
            "A[1, 0] = ((1 * 2) + 0)\n"
            "A[1, 1] = ((1 * 2) + 1)\n");
}

TEST(UnrollTest, SerialLoopsUpToTheThresholdUnrollToo) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Var i("i"), j("j");
  Stmt body = SeqStmt({For(i, 0, 2, ForKind::kSerial, BufferStore(a, i, {i})),
                       For(j, 2, 6, ForKind::kSerial, BufferStore(a, j, {j}))});
  PrimFunc f = MakeFunc("f", {a}, {}, body);
  EXPECT_EQ(Text(UnrollChecked(f)), Text(f));  // threshold 0: only marked loops
  EXPECT_EQ(Text(UnrollChecked(f, 2)),
            "A[0] = 0\n"
            "A[1] = 1\n"
            "for (j, 2, 6) {\n"
            "  A[j] = j\n"
            "}\n");
}

TEST(UnrollTest, ExtentZeroBecomesANoOp) {
  Buffer a = Buffer::Declare("A", {1}, kInt32);
  Var i("i");
  PrimFunc out = UnrollChecked(
      MakeFunc("f", {a}, {}, For(i, 0, 0, ForKind::kUnrolled, BufferStore(a, i, {0}))));
  EXPECT_EQ(Text(out), "0\n");
}

TEST(UnrollTest, NonConstantExtentIsAnErrorNamingTheLoop) {
  Buffer a = Buffer::Declare("A", {8}, kInt32);
  Var k("k"), n("n");
  absl::StatusOr<Stmt> result = Unroll(For(k, 0, n, ForKind::kUnrolled, BufferStore(a, k, {k})));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "unrolled loop 'k' has extent n; unrolling needs a constant extent");
}

// A 2 x 3 nest runs 6 stores: under auto_unroll_max_step 6 both loops unroll; under 5 only the
// inner one (3 stores) does.
Stmt StepNest(const Buffer& a, int64_t max_step, int64_t unroll_explicit = 1) {
  Var i("i"), j("j"), axis("axis");
  Stmt nest = For(i, 0, 2, ForKind::kSerial,
                  For(j, 0, 3, ForKind::kSerial, BufferStore(a, i, {i, j})));
  Stmt body = AttrStmt(Ref<const Object>(axis.get()), "pragma_auto_unroll_max_step",
                       IntImm(kInt32, max_step), nest);
  return AttrStmt(Ref<const Object>(axis.get()), "pragma_unroll_explicit",
                  IntImm(kInt32, unroll_explicit), body);
}

TEST(UnrollTest, AutoUnrollMaxStepUnrollsNestsOfAtMostThatManySteps) {
  Buffer a = Buffer::Declare("A", {2, 3}, kInt32);
  PrimFunc whole = UnrollChecked(MakeFunc("f", {a}, {}, StepNest(a, 6)));
  EXPECT_EQ(Text(whole),
            "A[0, 0] = 0\nA[0, 1] = 0\nA[0, 2] = 0\nA[1, 0] = 1\nA[1, 1] = 1\nA[1, 2] = 1\n");
  PrimFunc inner = UnrollChecked(MakeFunc("f", {a}, {}, StepNest(a, 5)));
  EXPECT_EQ(Text(inner),
            "for (i, 0, 2) {\n"
            "  A[i, 0] = i\n"
            "  A[i, 1] = i\n"
            "  A[i, 2] = i\n"
            "}\n");
}

TEST(UnrollTest, UnrollExplicitZeroKeepsTheLoopsMarkedUnrolled) {
  Buffer a = Buffer::Declare("A", {2, 3}, kInt32);
  PrimFunc out = UnrollChecked(MakeFunc("f", {a}, {}, StepNest(a, 6, 0)));
  EXPECT_EQ(Text(out),
            "for (i, 0, 2) unrolled {\n"
            "  for (j, 0, 3) unrolled {\n"
            "    A[i, j] = i\n"
            "  }\n"
            "}\n");
}

TEST(UnrollTest, APragmaWithoutAConstantIsAnError) {
  Buffer a = Buffer::Declare("A", {1}, kInt32);
  Var axis("axis"), n("n");
  absl::StatusOr<Stmt> result = Unroll(AttrStmt(
      Ref<const Object>(axis.get()), "pragma_auto_unroll_max_step", n, BufferStore(a, 0, {0})));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "pragma auto_unroll_max_step needs a constant, got n");
}

}  // namespace
}  // namespace tessel::transforms
