// Storage: BufferRealize regions with nonzero minimums, Allocate in each scope, fresh storage,
// strided and offset argument tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/testing/backends.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// Every test runs on the interpreter and through the LLVM backend (one body, two backends).
class MemoryTest : public ::testing::TestWithParam<tessel::testing::Backend> {
 protected:
  absl::Status Run(const ir::PrimFunc& f, const std::vector<Arg>& args) {
    return tessel::testing::RunOn(GetParam(), f, args);
  }
};

// realize T over [3, 8) x [2, 6) { T[i + 3, j + 2] = ...; out[i, j] = T[i + 3, j + 2] }
TEST_P(MemoryTest, BufferRealizeWithNonzeroRegionMinimum) {
  ir::Buffer t = ir::Buffer::Declare("T", {100, 100}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {5, 4}, ir::kInt32);
  ir::Var i("i"), j("j"), i2("i2"), j2("j2");
  ir::Stmt fill =
      Loop(i, 5, Loop(j, 4, ir::BufferStore(t, (i + 3) * 10 + (j + 2), {i + 3, j + 2})));
  ir::Stmt copy =
      Loop(i2, 5, Loop(j2, 4, ir::BufferStore(out, ir::BufferLoad(t, {i2 + 3, j2 + 2}), {i2, j2})));
  ir::Stmt realize =
      ir::BufferRealize(t, {ir::Range{3, 5}, ir::Range{2, 4}}, ir::SeqStmt({fill, copy}));
  ir::PrimFunc f("realize", {out->data}, {out}, realize);
  HostTensor<int32_t> tout({5, 4});
  const absl::Status status = Run(f, {tout.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 4; ++b) EXPECT_EQ(tout[a * 4 + b], (a + 3) * 10 + (b + 2));
  }
}

// The region's bounds are the realized ones, not the buffer's shape (a fault only the
// interpreter detects).
TEST(MemoryInterpTest, RealizedRegionBoundsAreChecked) {
  ir::Buffer t = ir::Buffer::Declare("T", {100, 100}, ir::kInt32);
  ir::Stmt outside =
      ir::BufferRealize(t, {ir::Range{3, 5}, ir::Range{2, 4}}, ir::BufferStore(t, 1, {2, 2}));
  const absl::Status bad = interp::Run(ir::PrimFunc("outside", {}, {}, outside), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("out-of-bounds store to buffer 'T' at T[2, 2]: index 2 is "
                               "outside [3, 8) in dimension 0"),
            absl::string_view::npos)
      << bad;
}

// A flat index into realized storage addresses its compact row-major layout.
TEST_P(MemoryTest, FlatAccessIntoRealizedStorageIsRowMajor) {
  ir::Buffer t = ir::Buffer::Declare("T", {5, 4}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {5, 4}, ir::kInt32);
  ir::Var k("k"), i("i"), j("j");
  ir::Stmt body = ir::SeqStmt(
      {Loop(k, 20, ir::BufferStore(t, k, {k})),
       Loop(i, 5, Loop(j, 4, ir::BufferStore(out, ir::BufferLoad(t, {i - 1, j + 7}), {i, j})))});
  ir::PrimFunc f("flat_realize", {out->data}, {out},
                 ir::BufferRealize(t, {ir::Range{-1, 5}, ir::Range{7, 4}}, body));
  HostTensor<int32_t> tout({5, 4});
  ASSERT_TRUE(Run(f, {tout.dl()}).ok());
  for (int e = 0; e < 20; ++e) EXPECT_EQ(tout[e], e);
}

// Realizing a buffer that is an argument uses the argument's storage.
TEST_P(MemoryTest, RealizeOfAnArgumentUsesItsStorage) {
  ir::Buffer c = ir::Buffer::Declare("C", {6}, ir::kInt32);
  ir::Var i("i");
  ir::PrimFunc f(
      "realize_output", {c->data}, {c},
      ir::BufferRealize(c, {ir::Range{0, 6}}, Loop(i, 6, ir::BufferStore(c, i * i, {i}))));
  HostTensor<int32_t> tc({6});
  ASSERT_TRUE(Run(f, {tc.dl()}).ok());
  for (int k = 0; k < 6; ++k) EXPECT_EQ(tc[k], k * k);
}

TEST_P(MemoryTest, AllocateInSharedAndLocalScope) {
  const int n = 8;
  ir::Buffer a = ir::Buffer::Declare("A", {n}, ir::kFloat32);
  ir::Buffer out = ir::Buffer::Declare("out", {n}, ir::kFloat32);
  ir::Buffer s = ir::Buffer::Declare("S", {n}, ir::kFloat32, "shared");
  ir::Buffer l = ir::Buffer::Declare("L", {1}, ir::kFloat32, "local");
  ir::Var i("i"), j("j");
  ir::Stmt stage = Loop(i, n,
                        ir::Allocate(l, ir::SeqStmt({
                                            ir::BufferStore(l, ir::BufferLoad(a, {i}) * 2.0f, {0}),
                                            ir::BufferStore(s, ir::BufferLoad(l, {0}) + 1.0f, {i}),
                                        })));
  ir::Stmt reverse = Loop(j, n, ir::BufferStore(out, ir::BufferLoad(s, {n - 1 - j}), {j}));
  ir::PrimFunc f("stage", {a->data, out->data}, {a, out},
                 ir::Allocate(s, ir::SeqStmt({stage, reverse})));
  HostTensor<float> ta({n}), tout({n});
  for (int k = 0; k < n; ++k) ta[k] = 0.5f * k;
  ASSERT_TRUE(Run(f, {ta.dl(), tout.dl()}).ok());
  for (int k = 0; k < n; ++k) EXPECT_EQ(tout[k], ta[n - 1 - k] * 2.0f + 1.0f);
}

// The interpreter fills fresh storage so that reads before writes show; compiled code leaves it
// as the allocator gives it.
TEST(MemoryInterpTest, FreshStorageShowsReadsBeforeWrites) {
  ir::Buffer tmp = ir::Buffer::Declare("tmp", {4}, ir::kFloat32);
  ir::Buffer itmp = ir::Buffer::Declare("itmp", {4}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kFloat32);
  ir::Buffer iout = ir::Buffer::Declare("iout", {4}, ir::kInt32);
  ir::Var i("i");
  ir::PrimFunc f(
      "uninitialized", {out->data, iout->data}, {out, iout},
      ir::Allocate(
          tmp, ir::Allocate(itmp, Loop(i, 4,
                                       ir::SeqStmt({
                                           ir::BufferStore(out, ir::BufferLoad(tmp, {i}), {i}),
                                           ir::BufferStore(iout, ir::BufferLoad(itmp, {i}), {i}),
                                       })))));
  HostTensor<float> tout({4});
  HostTensor<int32_t> tiout({4});
  ASSERT_TRUE(interp::Run(f, {tout.dl(), tiout.dl()}).ok());
  for (int k = 0; k < 4; ++k) {
    EXPECT_TRUE(std::isnan(tout[k]));
    EXPECT_EQ(tiout[k], -1);
  }
}

TEST_P(MemoryTest, AllocationSizeComesFromARunValue) {
  ir::Var n("n");
  ir::Buffer tmp = ir::Buffer::Declare("tmp", {n}, ir::kInt32);
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  ir::Var i("i");
  ir::Stmt body = ir::SeqStmt({Loop(i, n, ir::BufferStore(tmp, i, {i})),
                               ir::BufferStore(out, ir::BufferLoad(tmp, {n - 1}), {0})});
  ir::PrimFunc f("sized", {n, out->data}, {out}, ir::Allocate(tmp, body));
  HostTensor<int32_t> tout({1});
  ASSERT_TRUE(Run(f, {int64_t{5}, tout.dl()}).ok());
  EXPECT_EQ(tout[0], 4);
  const absl::Status bad = Run(f, {int64_t{-3}, tout.dl()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("Allocate of buffer 'tmp': negative size"), absl::string_view::npos)
      << bad;
}

// A buffer with symbolic strides and elem_offset reads a padded tensor with a byte offset.
TEST_P(MemoryTest, StridedAndOffsetArgumentTensor) {
  ir::Var row_stride("row_stride"), offset("offset");
  auto node = MakeRef<ir::BufferNode>();
  node->data = ir::Var("A", ir::DataType::Handle());
  node->dtype = ir::kFloat32;
  node->shape = {3, 4};
  node->strides = {row_stride, 1};
  node->elem_offset = offset;
  node->name = "A";
  node->scope = "global";
  node->alignment = 4;  // the view starts 8 bytes into its allocation
  ir::Buffer a(node);
  ir::Buffer out = ir::Buffer::Declare("out", {3, 4}, ir::kFloat32);
  ir::Var i("i"), j("j");
  ir::PrimFunc f("strided", {a->data, out->data}, {a, out},
                 Loop(i, 3, Loop(j, 4, ir::BufferStore(out, ir::BufferLoad(a, {i, j}), {i, j}))));
  // Rows of 6 floats, the tensor starting 2 floats into the allocation.
  std::vector<float> storage(2 + 3 * 6, -1.0f);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) storage[2 + r * 6 + c] = 10.0f * r + c;
  }
  int64_t shape[2] = {3, 4}, strides[2] = {6, 1};
  DLTensor t{};
  t.data = storage.data();
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = testing::DLTypeOf<float>();
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 2 * sizeof(float);
  HostTensor<float> tout({3, 4});
  const absl::Status status = Run(f, {&t, tout.dl()});
  ASSERT_TRUE(status.ok()) << status;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) EXPECT_EQ(tout[r * 4 + c], 10.0f * r + c);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MemoryTest, ::testing::ValuesIn(tessel::testing::AllBackends()),
                         tessel::testing::BackendParamName());

}  // namespace
}  // namespace tessel::interp
