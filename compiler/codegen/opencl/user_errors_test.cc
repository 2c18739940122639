// Every user error of the OpenCL backend, provoked and its message checked: a work-group past a
// Mali's 256 work-items (which CUDA and PoCL would take), local memory past its 32 KiB, a
// statement outside the thread-bound loops, warp synchronisation and assertions (no OpenCL
// equivalent), and a kernel whose OpenCL C does not build (the build log in the message).
#include <gtest/gtest.h>

#include "compiler/codegen/build.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/codegen/opencl/build_opencl.h"
#include "compiler/ir/op.h"
#include "compiler/runtime/opencl/opencl_api.h"
#include "compiler/runtime/opencl/program.h"

namespace tessel::codegen::opencl {
namespace {

void ExpectError(const absl::Status& status, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(status.ok()) << "expected an error";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' not in: " << status.message();
  }
}

absl::Status BuildFor(const ir::PrimFunc& f, const std::string& target) {
  return Build({f}, *target::Target::Parse(target)).status();
}

TEST(OpenclUserErrorTest, WorkGroupPastTheMaliLimit) {
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::ThreadsPerBlock(512);
  ASSERT_TRUE(k.ok()) << k.status();
  ExpectError(BuildFor(k->func, "opencl -device=mali"),
              {"kernel 'block_512': 512 work-items per work-group (threadIdx extents 512 x 1 x 1) "
               "exceed the limit of 256 work-items per work-group for opencl -device=mali"});
  ExpectError(BuildFor(k->func, "opencl"), {"exceed the limit of 256 work-items"});
}

TEST(OpenclUserErrorTest, LocalMemoryPastTheMaliLimit) {
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::StagedTile(10240);  // 40 KiB
  ASSERT_TRUE(k.ok()) << k.status();
  ExpectError(BuildFor(k->func, "opencl -device=mali"),
              {"kernel 'staged_10240': 40960 bytes of local memory per work-group (its \"shared\" "
               "buffers) exceed the limit of 32768 bytes for opencl -device=mali"});
}

TEST(OpenclUserErrorTest, StatementOutsideThreadLoops) {
  absl::StatusOr<ir::PrimFunc> f = gpu::testing::UnboundLoops();
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectError(BuildFor(*f, "opencl"),
              {"function 'unbound': the statement `for (i, 0, 256) {` runs outside every "
               "thread-bound loop; bind its outer loops to blockIdx/threadIdx"});
}

TEST(OpenclUserErrorTest, WarpSyncAndAssertionsHaveNoOpenclEquivalent) {
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kInt32);
  ir::Var tx("tx");
  ir::Stmt sync = ir::Evaluate(ir::Call(ir::kInt32, ir::Intrinsic::kStorageSync,
                                        {ir::StringImm("warp")}));
  ir::PrimFunc warp("warp", {out->data}, {out},
                    ir::For(tx, 0, 64, ir::ForKind::kThreadBinding,
                            ir::SeqStmt({sync, ir::BufferStore(out, tx, {tx})}), "threadIdx.x"));
  ExpectError(BuildFor(warp, "opencl"),
              {"function 'warp': storage_sync(\"warp\"): a kernel synchronizes only \"shared\" "
               "(a work-group)"});
  ir::PrimFunc assert_kernel(
      "asserts", {out->data}, {out},
      ir::For(tx, 0, 64, ir::ForKind::kThreadBinding,
              ir::AssertStmt(ir::LT(tx, 100), "tx in range", ir::BufferStore(out, tx, {tx})),
              "threadIdx.x"));
  ExpectError(BuildFor(assert_kernel, "opencl"),
              {"function 'asserts': an assertion (tx in range) in a kernel: OpenCL cannot "
               "report one"});
}

// What the printer emits always builds, so the failing build is provoked on hand-written OpenCL
// C: the error carries the compiler's log.
TEST(OpenclUserErrorTest, AKernelThatDoesNotBuildCarriesTheBuildLog) {
  absl::StatusOr<const runtime::opencl::Platform*> platform = runtime::opencl::GetPlatform();
  if (!platform.ok()) GTEST_SKIP() << platform.status().message();
  absl::Status s = runtime::opencl::CheckProgramBuilds(
      "__kernel void k(__global float* x) { x[0] = missing_function(1.0f); }\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << s;
  EXPECT_NE(s.message().find("build log:\n"), std::string::npos) << s;
  EXPECT_NE(s.message().find("missing_function"), std::string::npos) << s;
}

// Through Build: a function named after an OpenCL C keyword prints, but its source does not
// build; Build reports it with the build log instead of returning a module that fails later.
TEST(OpenclUserErrorTest, BuildReportsASourceThatDoesNotBuild) {
  absl::StatusOr<const runtime::opencl::Platform*> platform = runtime::opencl::GetPlatform();
  if (!platform.ok()) GTEST_SKIP() << platform.status().message();
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kInt32);
  ir::Var tx("tx");
  ir::PrimFunc f("global", {out->data}, {out},
                 ir::For(tx, 0, 64, ir::ForKind::kThreadBinding, ir::BufferStore(out, tx, {tx}),
                         "threadIdx.x"));
  ExpectError(BuildFor(f, "opencl -device=mali"),
              {"target 'opencl -device=mali': the OpenCL C of 1 function(s) does not build: "
               "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)",
               "build log:\n", "error: "});
}

}  // namespace
}  // namespace tessel::codegen::opencl
