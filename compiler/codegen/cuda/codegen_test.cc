// The CUDA printer on real schedules (gpu/testing/gpu_kernels.h): the source says what the schedule
// asked for (thread indices, __shared__ tiles, barriers, local accumulators, float4 accesses),
// and the launch extents evaluate to the grid and block the schedule implies. No toolkit needed.
#include "compiler/codegen/cuda/codegen_cuda.h"

#include <absl/strings/match.h>
#include <absl/strings/str_split.h>
#include <gtest/gtest.h>

#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/ir/op.h"

namespace tessel::codegen::cuda {
namespace {

using gpu::testing::GpuKernel;

GeneratedSource Generate(const absl::StatusOr<GpuKernel>& k) {
  EXPECT_TRUE(k.ok()) << k.status();
  absl::StatusOr<GeneratedSource> s = GenerateCuda({k->func});
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : GeneratedSource{};
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The launch's grid and block for the given slot values.
std::array<int64_t, 6> Dims(const GeneratedKernel& k, std::vector<uint64_t> slots) {
  std::array<int64_t, 6> out{};
  for (int d = 0; d < 6; ++d) {
    const runtime::LaunchExpr& e =
        d < 3 ? k.launch.dims.grid[d] : k.launch.dims.block[d - 3];
    absl::StatusOr<int64_t> v = e.Evaluate(slots.data(), static_cast<int>(slots.size()));
    EXPECT_TRUE(v.ok()) << v.status();
    out[d] = v.ok() ? *v : -1;
  }
  return out;
}

TEST(CudaCodegenTest, VectorAddHasASymbolicGrid) {
  GeneratedSource s = Generate(gpu::testing::VectorAdd());
  ASSERT_EQ(s.kernels.size(), 1u);
  const std::string& c = s.code;
  EXPECT_NE(c.find("extern \"C\" __global__ void __launch_bounds__(64) vector_add(const float* "
                   "__restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("const int i_outer = ((int)blockIdx.x);"), std::string::npos) << c;
  EXPECT_NE(c.find("const int i_inner = ((int)threadIdx.x);"), std::string::npos) << c;
  EXPECT_NE(c.find("< n)"), std::string::npos) << "the guard of the last block\n" << c;
  // ceil(n / 64) blocks of 64 threads; slots: A, B, C, n.
  for (uint64_t n : {1u, 64u, 65u, 1000u}) {
    EXPECT_EQ(Dims(s.kernels[0], {0, 0, 0, n}),
              (std::array<int64_t, 6>{static_cast<int64_t>((n + 63) / 64), 1, 1, 64, 1, 1}))
        << n;
  }
  EXPECT_FALSE(s.kernels[0].launch.threads_per_block() == std::nullopt);
}

TEST(CudaCodegenTest, SharedMatmulStagesTilesBetweenBarriers) {
  absl::StatusOr<GpuKernel> k = gpu::testing::SharedMatmul();
  GeneratedSource s = Generate(k);
  ASSERT_EQ(s.kernels.size(), 1u);
  const std::string& c = s.code;
  EXPECT_NE(c.find("__shared__ __align__(16) float A_shared[512];"), std::string::npos) << c;
  EXPECT_NE(c.find("__shared__ __align__(16) float B_shared[512];"), std::string::npos) << c;
  // The accumulator is per thread, not shared.
  EXPECT_NE(c.find("  __align__(16) float C_local[16];"), std::string::npos) << c;
  EXPECT_EQ(Count(c, "__syncthreads();"), 2) << c;
  EXPECT_EQ(Count(c, "threadIdx.x"), 1) << "one hardware index for every threadIdx.x loop\n" << c;
  EXPECT_EQ(s.kernels[0].shared_bytes, k->shared_bytes);
  EXPECT_EQ(Dims(s.kernels[0], {0, 0, 0}), (std::array<int64_t, 6>{4, 4, 1, 16, 16, 1}));
  EXPECT_EQ(s.kernels[0].launch.threads_per_block(), 256);
  const runtime::FunctionSignature& sig = s.kernels[0].signature.signature;
  ASSERT_EQ(sig.params.size(), 3u);
  EXPECT_FALSE(sig.params[0].written);
  EXPECT_TRUE(sig.params[2].written);
}

TEST(CudaCodegenTest, ReductionCallsExpf) {
  GeneratedSource s = Generate(gpu::testing::RowSumExp());
  EXPECT_NE(s.code.find("expf(A["), std::string::npos) << s.code;
}

TEST(CudaCodegenTest, AlignedVectorAccessesAreFloat4) {
  GeneratedSource s = Generate(gpu::testing::Float4Scale());
  EXPECT_NE(s.code.find("const float4 v = *(const float4*)(A + "), std::string::npos) << s.code;
  EXPECT_NE(s.code.find("*(float4*)(B + "), std::string::npos) << s.code;
  EXPECT_NE(s.code.find("make_float4((v.x * 2.0f), (v.y * 2.0f), (v.z * 2.0f), (v.w * 2.0f))"),
            std::string::npos)
      << s.code;
}

TEST(CudaCodegenTest, VirtualThreadsBecomeOneStream) {
  GeneratedSource s = Generate(gpu::testing::VthreadAffine());
  EXPECT_EQ(s.code.find("for ("), std::string::npos) << "no loop is left\n" << s.code;
  EXPECT_EQ(Count(s.code, "] = ((A["), 2) << "two virtual threads, two stores\n" << s.code;
  EXPECT_EQ(Dims(s.kernels[0], {0, 0}), (std::array<int64_t, 6>{4, 2, 1, 16, 16, 1}));
}

// Hand-written IR for what the schedules above do not reach: a vector access whose first element
// is not provably a multiple of 4 goes lane by lane; an odd-width vector is refused.
TEST(CudaCodegenTest, UnalignedVectorsGoLaneByLaneAndOddWidthsAreRefused) {
  ir::Buffer a = ir::Buffer::Declare("A", {260}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {260}, ir::kFloat32);
  ir::Var tx("tx");
  auto kernel = [&](int lanes) {
    ir::Expr index = ir::Ramp(tx * lanes + 1, 1, lanes);
    return ir::PrimFunc(
        "shifted", {a->data, b->data}, {a, b},
        ir::For(tx, 0, 64, ir::ForKind::kThreadBinding,
                ir::BufferStore(b, ir::BufferLoad(a, {index}) + ir::Broadcast(1.0f, lanes),
                                {index}),
                "threadIdx.x"));
  };
  absl::StatusOr<GeneratedSource> s = GenerateCuda({kernel(4)});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->code.find("float4"), std::string::npos) << s->code;
  EXPECT_EQ(Count(s->code, "B["), 4) << s->code;
  absl::StatusOr<GeneratedSource> wide = GenerateCuda({kernel(8)});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find(
                "function 'shifted': vector type float32x8: the CUDA backend emits vectors of 2 "
                "or 4 lanes"),
            std::string::npos)
      << wide.status();
}

TEST(CudaCodegenTest, ImmediatesSelectsCastsAndIntegerDivision) {
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kFloat32);
  ir::Buffer idx = ir::Buffer::Declare("idx", {64}, ir::kInt32);
  ir::Var tx("tx"), d("d");
  ir::Expr value = ir::Select(ir::LT(ir::Cast(ir::kFloat32, tx), 1e-7f),
                              ir::FloatImm(ir::kFloat32, -2.5),
                              ir::Call(ir::kFloat32, ir::Intrinsic::kSqrt,
                                       {ir::Cast(ir::kFloat32, tx)}));
  ir::Stmt body = ir::SeqStmt({
      ir::BufferStore(out, value, {tx}),
      ir::BufferStore(idx, ir::FloorDiv(tx - 32, d) + ir::FloorMod(tx, d), {tx}),
  });
  ir::PrimFunc f("misc", {out->data, idx->data, d}, {out, idx},
                 ir::For(tx, 0, 64, ir::ForKind::kThreadBinding, body, "threadIdx.x"));
  absl::StatusOr<GeneratedSource> s = GenerateCuda({f});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NE(s->code.find("((((float)tx) < 1.0e-07f) ? (-2.5f) : sqrtf(((float)tx)))"),
            std::string::npos)
      << s->code;
  EXPECT_NE(s->code.find("(tessel_floordiv((tx - 32), d) + tessel_floormod(tx, d))"),
            std::string::npos)
      << s->code;
}

// Index arithmetic is named once per C block: a chain of 16 steps, each using the previous one
// twice, prints 16 steps (inline it would print 2^16 leaves); a long index reused in sibling
// blocks is printed in each (PoCL compiles and runs the same kernel in opencl:run_test); a
// division by a parameter that may be zero is not moved out of the select that holds it.
TEST(CudaCodegenTest, IndexArithmeticIsNamedOnceInItsBlock) {
  GeneratedSource s = Generate(gpu::testing::IndexReuse());
  const std::string& c = s.code;
  EXPECT_LT(c.size(), 8000u) << c;
  // The chain's 16 steps, then the long index once in each of four blocks.
  EXPECT_EQ(Count(c, " = tessel_floormod("), 16 + 4) << c;
  for (absl::string_view line : absl::StrSplit(c, '\n')) {
    if (absl::StrContains(line, "const int idx"))
      EXPECT_FALSE(absl::StrContains(line, ", n)")) << c;
  }
}

}  // namespace
}  // namespace tessel::codegen::cuda
