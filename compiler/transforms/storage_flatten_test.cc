// StorageFlatten: printed IR before/after, well-formedness of the output, and the interpreter's
// results before and after on random inputs.
#include "compiler/transforms/storage_flatten.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/well_formed.h"
#include "compiler/transforms/test_util.h"

namespace tessel::transforms {
namespace {

using namespace ir;  // NOLINT: tests build IR by hand
using testing::MakeFunc;
using testing::SameOutputs;
using testing::Text;
using testing::WellFormed;

// A[4, 8] -> realize B over [1, 5) x [2, 10) -> C[4, 8].
PrimFunc RealizeWithOffsets() {
  Buffer a = Buffer::Declare("A", {4, 8}, kFloat32);
  Buffer c = Buffer::Declare("C", {4, 8}, kFloat32);
  Buffer b = Buffer::Declare("B", {4, 8}, kFloat32, "shared");
  Var i("i"), j("j"), i2("i"), j2("j");
  Stmt produce = For(
      i, 1, 4, ForKind::kSerial,
      For(j, 2, 8, ForKind::kSerial, BufferStore(b, BufferLoad(a, {i - 1, j - 2}) * 2.0f, {i, j})));
  Stmt consume = For(
      i2, 0, 4, ForKind::kSerial,
      For(j2, 0, 8, ForKind::kSerial, BufferStore(c, BufferLoad(b, {i2 + 1, j2 + 2}), {i2, j2})));
  Stmt body = BufferRealize(b, {{1, 4}, {2, 8}}, SeqStmt({produce, consume}));
  return MakeFunc("f", {a, c}, {}, body);
}

TEST(StorageFlattenTest, RealizeBecomesFlatAllocateIndexedFromItsMins) {
  PrimFunc f = RealizeWithOffsets();
  ASSERT_TRUE(VerifyWellFormed(f).ok());
  PrimFunc out = StorageFlatten(f);
  EXPECT_EQ(Text(out),
            "allocate B: float32[32] scope \"shared\" {\n"
            "  for (i, 1, 4) {\n"
            "    for (j, 2, 8) {\n"
            "      B[(((i - 1) * 8) + (j - 2))] = (A[(((i - 1) * 8) + (j - 2))] * 2.0f)\n"
            "    }\n"
            "  }\n"
            "  for (i_1, 0, 4) {\n"
            "    for (j_1, 0, 8) {\n"
            "      C[((i_1 * 8) + j_1)] = B[((((i_1 + 1) - 1) * 8) + ((j_1 + 2) - 2))]\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  EXPECT_TRUE(SameOutputs(f, out, 1));
  ASSERT_EQ(out->buffers.size(), 2u);
  // Parameters keep their declared buffers: the calling convention.
  EXPECT_TRUE(out->buffers[0].same_as(f->buffers[0]));
}

TEST(StorageFlattenTest, ParameterStridesAndOffsetMayBeVariables) {
  Var s0("s0"), off("off"), i("i"), j("j");
  Buffer a = Buffer::Declare("A", {4, 3}, kFloat32).WithShape({4, 3}, {s0, 1});
  {
    auto node = MakeRef<BufferNode>();
    node->data = a->data;
    node->dtype = a->dtype;
    node->shape = a->shape;
    node->strides = a->strides;
    node->elem_offset = off;
    node->name = a->name;
    node->scope = a->scope;
    node->alignment = a->alignment;
    a = Buffer(std::move(node));
  }
  Buffer c = Buffer::Declare("C", {4, 3}, kFloat32);
  Stmt body = For(i, 0, 4, ForKind::kSerial,
                  For(j, 0, 3, ForKind::kSerial, BufferStore(c, BufferLoad(a, {i, j}), {i, j})));
  PrimFunc f = MakeFunc("f", {a, c}, {s0, off}, body);
  PrimFunc out = StorageFlatten(f);
  EXPECT_EQ(Text(out),
            "for (i, 0, 4) {\n"
            "  for (j, 0, 3) {\n"
            "    C[((i * 3) + j)] = A[((off + (i * s0)) + j)]\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(out->buffers[0].same_as(f->buffers[0]));
  EXPECT_TRUE(out->buffers[1].same_as(f->buffers[1]));
  EXPECT_TRUE(WellFormed(out));
}

TEST(StorageFlattenTest, DimAlignPadsTheStride) {
  Buffer a = Buffer::Declare("A", {4, 6}, kFloat32);
  Buffer s = Buffer::Declare("S", {4, 6}, kFloat32, "shared");
  Var i("i"), j("j");
  Stmt copy = For(i, 0, 4, ForKind::kSerial,
                  For(j, 0, 6, ForKind::kSerial, BufferStore(s, BufferLoad(a, {i, j}), {i, j})));
  Stmt back = For(Var("i"), 0, 1, ForKind::kSerial, BufferStore(a, BufferLoad(s, {3, 5}), {0, 0}));
  Stmt body =
      BufferDimAlign(s->data, 0, 8, 1, BufferRealize(s, {{0, 4}, {0, 6}}, SeqStmt({copy, back})));
  PrimFunc f = MakeFunc("f", {a}, {}, body);
  PrimFunc out = StorageFlatten(f);
  // Row stride 6 padded to 9 (9 % 8 == 1): 4 rows of 9.
  EXPECT_EQ(Text(out),
            "allocate S: float32[36] scope \"shared\" {\n"
            "  for (i, 0, 4) {\n"
            "    for (j, 0, 6) {\n"
            "      S[((i * 9) + j)] = A[((i * 6) + j)]\n"
            "    }\n"
            "  }\n"
            "  for (i_1, 0, 1) {\n"
            "    A[0] = S[32]\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  EXPECT_TRUE(SameOutputs(f, out, 2));
}

TEST(StorageFlattenTest, SymbolicRealizeExtentsGiveSymbolicStrides) {
  Var n("n"), i("i"), j("j");
  Buffer a = Buffer::Declare("A", {n, 5}, kFloat32);
  Buffer t = Buffer::Declare("T", {n, 5}, kFloat32);
  Stmt body =
      BufferRealize(t, {{0, n}, {0, 5}},
                    For(i, 0, n, ForKind::kSerial,
                        For(j, 0, 5, ForKind::kSerial,
                            SeqStmt({BufferStore(t, BufferLoad(a, {i, j}), {i, j}),
                                     BufferStore(a, BufferLoad(t, {i, j}) + 1.0f, {i, j})}))));
  PrimFunc out = StorageFlatten(MakeFunc("f", {a}, {n}, body));
  EXPECT_EQ(Text(out),
            "allocate T: float32[(5 * n)] {\n"
            "  for (i, 0, n) {\n"
            "    for (j, 0, 5) {\n"
            "      T[((i * 5) + j)] = A[((i * 5) + j)]\n"
            "      A[((i * 5) + j)] = (T[((i * 5) + j)] + 1.0f)\n"
            "    }\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
}

TEST(StorageFlattenTest, RealizeOfAParameterUsesTheParameterStorage) {
  Buffer c = Buffer::Declare("C", {2, 3}, kInt32);
  Var i("i"), j("j");
  Stmt body = BufferRealize(c, {{0, 2}, {0, 3}},
                            For(i, 0, 2, ForKind::kSerial,
                                For(j, 0, 3, ForKind::kSerial, BufferStore(c, i + j, {i, j}))));
  PrimFunc f = MakeFunc("f", {c}, {}, body);
  PrimFunc out = StorageFlatten(f);
  EXPECT_EQ(Text(out),
            "for (i, 0, 2) {\n"
            "  for (j, 0, 3) {\n"
            "    C[((i * 3) + j)] = (i + j)\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(WellFormed(out));
  EXPECT_TRUE(SameOutputs(f, out, 3));
}

// A 3-D stencil through a realized window with nonzero mins on every dimension and two aligned
// dimensions, run before and after on random inputs.
TEST(StorageFlattenTest, ThreeDimensionalWindowComputesTheSameResults) {
  Buffer in = Buffer::Declare("In", {3, 6, 5}, kFloat32);
  Buffer out_b = Buffer::Declare("Out", {3, 4, 3}, kFloat32);
  Buffer w = Buffer::Declare("W", {3, 6, 5}, kFloat32, "local");
  Var c("c"), y("y"), x("x"), c2("c"), y2("y"), x2("x");
  // W over [1, 3) x [1, 6) x [2, 5): W[c, y, x] = In[c, y, x] * 3.
  Stmt fill = For(c, 1, 2, ForKind::kSerial,
                  For(y, 1, 5, ForKind::kSerial,
                      For(x, 2, 3, ForKind::kSerial,
                          BufferStore(w, BufferLoad(in, {c, y, x}) * 3.0f, {c, y, x}))));
  Stmt use =
      For(c2, 1, 2, ForKind::kSerial,
          For(y2, 1, 4, ForKind::kSerial,
              For(x2, 2, 3, ForKind::kSerial,
                  BufferStore(out_b, BufferLoad(w, {c2, y2, x2}) + BufferLoad(w, {c2, y2 + 1, x2}),
                              {c2, y2 - 1, x2 - 2}))));
  Stmt body = BufferDimAlign(
      w->data, 1, 4, 3,
      BufferDimAlign(w->data, 0, 16, 0,
                     BufferRealize(w, {{1, 2}, {1, 5}, {2, 3}}, SeqStmt({fill, use}))));
  PrimFunc f = MakeFunc("stencil", {in, out_b}, {}, body);
  PrimFunc flat = StorageFlatten(f);
  // Strides: x 1; y 3 padded to 3 (3 % 4 == 3); c 5 * 3 = 15 padded to 16; 2 * 16 elements.
  EXPECT_NE(Text(flat).find("allocate W: float32[32] scope \"local\""), std::string::npos)
      << Text(flat);
  EXPECT_TRUE(WellFormed(flat));
  for (uint32_t seed = 0; seed < 4; ++seed) EXPECT_TRUE(SameOutputs(f, flat, seed));
}

TEST(StorageFlattenTest, StridedViewIndexesFromTheStartOfTheStorage) {
  // V is the 2 x 2 tile of B at (1, 2), as tensorize describes a matched region: B's data with
  // elem_offset 1 * 8 + 2 and B's row stride.
  Buffer a = Buffer::Declare("A", {4, 8}, kFloat32);
  Buffer c = Buffer::Declare("C", {2, 2}, kFloat32);
  Buffer b = Buffer::Declare("B", {4, 8}, kFloat32);
  Buffer v;
  {
    auto node = MakeRef<BufferNode>();
    node->data = b->data;
    node->dtype = b->dtype;
    node->shape = {2, 2};
    node->strides = {8, 1};
    node->elem_offset = 10;
    node->name = "V";
    node->scope = b->scope;
    node->alignment = b->alignment;
    v = Buffer(std::move(node));
  }
  Var i("i"), j("j"), i2("i"), j2("j");
  Stmt fill = For(i, 0, 4, ForKind::kSerial,
                  For(j, 0, 8, ForKind::kSerial, BufferStore(b, BufferLoad(a, {i, j}), {i, j})));
  Stmt use =
      For(i2, 0, 2, ForKind::kSerial,
          For(j2, 0, 2, ForKind::kSerial, BufferStore(c, BufferLoad(v, {i2, j2}), {i2, j2})));
  PrimFunc f =
      MakeFunc("view", {a, c}, {}, BufferRealize(b, {{0, 4}, {0, 8}}, SeqStmt({fill, use})));
  PrimFunc out = StorageFlatten(f);
  EXPECT_NE(Text(out).find("C[((i_1 * 2) + j_1)] = B[((10 + (i_1 * 8)) + j_1)]"), std::string::npos)
      << Text(out);
  EXPECT_TRUE(WellFormed(out));
}

}  // namespace
}  // namespace tessel::transforms
