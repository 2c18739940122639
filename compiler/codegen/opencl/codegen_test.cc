// The OpenCL printer on real schedules (gpu/testing/gpu_kernels.h): the source says what the
// schedule asked for in OpenCL C's words (work-group and local ids, __local tiles at the kernel's
// outermost scope, barriers, __private accumulators, vload4/vstore4, overloaded math), and the
// launch extents are those of the CUDA backend (one host/device split). No device needed.
#include "compiler/codegen/opencl/codegen_opencl.h"

#include <gtest/gtest.h>

#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/ir/op.h"

namespace tessel::codegen::opencl {
namespace {

using c_source::GeneratedKernel;
using c_source::GeneratedSource;
using gpu::testing::GpuKernel;

GeneratedSource Generate(const absl::StatusOr<GpuKernel>& k) {
  EXPECT_TRUE(k.ok()) << k.status();
  absl::StatusOr<GeneratedSource> s = GenerateOpencl({k->func});
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : GeneratedSource{};
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::array<int64_t, 6> Dims(const GeneratedKernel& k, std::vector<uint64_t> slots) {
  std::array<int64_t, 6> out{};
  for (int d = 0; d < 6; ++d) {
    const runtime::LaunchExpr& e = d < 3 ? k.launch.dims.grid[d] : k.launch.dims.block[d - 3];
    absl::StatusOr<int64_t> v = e.Evaluate(slots.data(), static_cast<int>(slots.size()));
    EXPECT_TRUE(v.ok()) << v.status();
    out[d] = v.ok() ? *v : -1;
  }
  return out;
}

TEST(OpenclCodegenTest, VectorAddUsesGroupAndLocalIds) {
  GeneratedSource s = Generate(gpu::testing::VectorAdd());
  ASSERT_EQ(s.kernels.size(), 1u);
  const std::string& c = s.code;
  EXPECT_NE(c.find("__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void vector_add("
                   "__global const float* restrict A, __global const float* restrict B, "
                   "__global float* restrict C, int n) {"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("const int i_outer = ((int)get_group_id(0));"), std::string::npos) << c;
  EXPECT_NE(c.find("const int i_inner = ((int)get_local_id(0));"), std::string::npos) << c;
  EXPECT_EQ(c.find("threadIdx"), std::string::npos) << c;
  EXPECT_EQ(c.find("__global__"), std::string::npos) << c;
  for (uint64_t n : {1u, 65u, 1000u}) {
    EXPECT_EQ(Dims(s.kernels[0], {0, 0, 0, n}),
              (std::array<int64_t, 6>{static_cast<int64_t>((n + 63) / 64), 1, 1, 64, 1, 1}));
  }
}

TEST(OpenclCodegenTest, SharedMatmulDeclaresLocalTilesAtKernelScope) {
  absl::StatusOr<GpuKernel> k = gpu::testing::SharedMatmul();
  GeneratedSource s = Generate(k);
  ASSERT_EQ(s.kernels.size(), 1u);
  const std::string& c = s.code;
  const size_t head = c.find("void shared_matmul(");
  ASSERT_NE(head, std::string::npos) << c;
  // The __local arrays are the first lines of the body (OpenCL C allows them nowhere else).
  const size_t body = c.find("{\n", head) + 2;
  EXPECT_EQ(c.find("  __local float A_shared[512] __attribute__((aligned(16)));\n", body), body)
      << c;
  EXPECT_NE(c.find("  __local float B_shared[512] __attribute__((aligned(16)));\n"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("__private float C_local[16] __attribute__((aligned(16)));"), std::string::npos)
      << c;
  EXPECT_EQ(Count(c, "barrier(CLK_LOCAL_MEM_FENCE);"), 2) << c;
  EXPECT_EQ(Count(c, "__local "), 2) << c;
  EXPECT_NE(c.find("reqd_work_group_size(16, 16, 1)"), std::string::npos) << c;
  EXPECT_EQ(s.kernels[0].shared_bytes, k->shared_bytes);
  EXPECT_EQ(Dims(s.kernels[0], {0, 0, 0}), (std::array<int64_t, 6>{4, 4, 1, 16, 16, 1}));
}

TEST(OpenclCodegenTest, ReductionCallsOverloadedExp) {
  GeneratedSource s = Generate(gpu::testing::RowSumExp());
  EXPECT_NE(s.code.find(" exp(A["), std::string::npos) << s.code;
  EXPECT_EQ(s.code.find("expf"), std::string::npos) << s.code;
}

TEST(OpenclCodegenTest, AlignedVectorAccessesAreVload4AndVstore4) {
  GeneratedSource s = Generate(gpu::testing::Float4Scale());
  EXPECT_NE(s.code.find("const float4 v = vload4(0, A + "), std::string::npos) << s.code;
  EXPECT_NE(s.code.find("vstore4((float4)((v.x * 2.0f), (v.y * 2.0f), (v.z * 2.0f), "
                        "(v.w * 2.0f)), 0, B + "),
            std::string::npos)
      << s.code;
}

TEST(OpenclCodegenTest, VirtualThreadsBecomeOneStream) {
  GeneratedSource s = Generate(gpu::testing::VthreadAffine());
  EXPECT_EQ(s.code.find("for ("), std::string::npos) << s.code;
  EXPECT_EQ(Count(s.code, "] = ((A["), 2) << s.code;
  EXPECT_EQ(Dims(s.kernels[0], {0, 0}), (std::array<int64_t, 6>{4, 2, 1, 16, 16, 1}));
}

// 64-bit integers are long (OpenCL C reserves `long long`), special floats use as_float, the
// integer helpers are per type, and names OpenCL C reserves are renamed.
TEST(OpenclCodegenTest, DialectWords) {
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kFloat32);
  ir::Buffer idx = ir::Buffer::Declare("idx", {64}, ir::kInt64);
  ir::Var tx("local"), d("d", ir::kInt64);
  ir::Stmt body = ir::SeqStmt({
      ir::BufferStore(out, ir::Max(ir::Cast(ir::kFloat32, tx), ir::FloatImm(ir::kFloat32, INFINITY)),
                      {tx}),
      ir::BufferStore(idx,
                      ir::FloorDiv(ir::Cast(ir::kInt64, tx), d) +
                          ir::IntImm(ir::kInt64, int64_t{1} << 40),
                      {tx}),
  });
  ir::PrimFunc f("words", {out->data, idx->data, d}, {out, idx},
                 ir::For(tx, 0, 64, ir::ForKind::kThreadBinding, body, "threadIdx.x"));
  absl::StatusOr<GeneratedSource> s = GenerateOpencl({f});
  ASSERT_TRUE(s.ok()) << s.status();
  const std::string& c = s->code;
  EXPECT_NE(c.find("__global long* restrict idx, long d)"), std::string::npos) << c;
  EXPECT_NE(c.find("const int v_local = ((int)get_local_id(0));"), std::string::npos) << c;
  EXPECT_NE(c.find("tessel_max_float(((float)v_local), as_float(0x7f800000))"), std::string::npos)
      << c;
  EXPECT_NE(c.find("(tessel_floordiv_long(((long)v_local), d) + 1099511627776L)"),
            std::string::npos)
      << c;
  EXPECT_EQ(c.find("long long"), std::string::npos) << c;
}

}  // namespace
}  // namespace tessel::codegen::opencl
