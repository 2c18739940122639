// Every user error of the CUDA backend, provoked and its message checked: a statement outside
// the thread-bound loops, a block with more threads, shared memory or registers than the target
// allows, separate kernels in one function, a parallel loop.
#include <gtest/gtest.h>

#include "compiler/codegen/build.h"
#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/codegen/gpu/testing/gpu_kernels.h"
#include "compiler/ir/op.h"

namespace tessel::codegen::cuda {
namespace {

void ExpectError(const absl::Status& status, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(status.ok()) << "expected an error";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' not in: " << status.message();
  }
}

absl::Status BuildFor(const absl::StatusOr<ir::PrimFunc>& f, target::GpuFacts gpu = {}) {
  if (!f.ok()) return f.status();
  return BuildCuda({*f}, *target::Target::Parse("cuda -arch=sm_90"), gpu).status();
}

TEST(CudaUserErrorTest, StatementOutsideThreadLoops) {
  ExpectError(BuildFor(gpu::testing::UnboundLoops()),
              {"function 'unbound': the statement `for (i, 0, 256) {` runs outside every "
               "thread-bound loop; bind its outer loops to blockIdx/threadIdx"});
}

TEST(CudaUserErrorTest, TooManyThreadsPerBlock) {
  ExpectError(BuildFor(gpu::testing::TooManyThreads()),
              {"kernel 'too_many_threads': 2048 threads per block (threadIdx extents 2048 x 1 x "
               "1) exceed the limit of 1024 threads per block for cuda -arch=sm_90"});
}

// 128 threads in all, but threadIdx.z takes at most 64; blockIdx.y at most 65535.
TEST(CudaUserErrorTest, ExtentPastItsDimensionsLimit) {
  ExpectError(BuildFor(gpu::testing::BoundTo(1024, 128, "blockIdx.x", "threadIdx.z")),
              {"kernel 'bound_to': threadIdx.z extent 128 exceeds its limit of 64 for "
               "cuda -arch=sm_90"});
  ExpectError(BuildFor(gpu::testing::BoundTo(70000, 1, "blockIdx.y", "threadIdx.x")),
              {"kernel 'bound_to': blockIdx.y extent 70000 exceeds its limit of 65535"});
#ifndef TESSEL_CUDA_MISSING
  absl::Status fits = BuildFor(gpu::testing::BoundTo(1024, 64, "blockIdx.x", "threadIdx.z"));
  EXPECT_TRUE(fits.ok()) << fits;
#endif
}

TEST(CudaUserErrorTest, TooMuchSharedMemory) {
  ExpectError(BuildFor(gpu::testing::TooMuchSharedMemory()),
              {"kernel 'too_much_shared': 65536 bytes of shared memory per block exceed the "
               "limit of 49152 bytes for cuda -arch=sm_90"});
}

TEST(CudaUserErrorTest, TooManyRegistersPerBlock) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  absl::StatusOr<gpu::testing::GpuKernel> k = gpu::testing::SharedMatmul();
  ASSERT_TRUE(k.ok()) << k.status();
  target::GpuFacts small;
  small.registers_per_block = 4096;  // 16 registers for each of 256 threads
  ExpectError(BuildFor(k->func, small),
              {"kernel 'shared_matmul': ", " registers per thread x 256 threads = ",
               " registers per block exceed the limit of 4096 registers per block"});
}

TEST(CudaUserErrorTest, TwoKernelsInOneFunctionAndParallelLoops) {
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kInt32);
  ir::Var a("a"), b("b"), p("p");
  auto store = [&](const ir::Var& v) { return ir::BufferStore(out, v, {v}); };
  ir::PrimFunc two(
      "two", {out->data}, {out},
      ir::SeqStmt({ir::For(a, 0, 64, ir::ForKind::kThreadBinding, store(a), "threadIdx.x"),
                   ir::For(b, 0, 64, ir::ForKind::kThreadBinding, store(b), "threadIdx.x")}));
  ExpectError(BuildFor(two), {"function 'two': has 2 separate thread-bound loop nests"});
  ir::PrimFunc parallel("parallel", {out->data}, {out},
                        ir::For(a, 0, 1, ir::ForKind::kThreadBinding,
                                ir::For(p, 0, 64, ir::ForKind::kParallel, store(p)), "blockIdx.x"));
  ExpectError(BuildFor(parallel), {"function 'parallel': loop 'p' is parallel: on a GPU bind it to "
                                   "blockIdx/threadIdx instead"});
}

TEST(CudaUserErrorTest, OneHardwareIndexHasOneExtent) {
  ir::Buffer out = ir::Buffer::Declare("out", {64}, ir::kInt32);
  ir::Var bx("bx"), a("a"), b("b");
  ir::PrimFunc f("extents", {out->data}, {out},
                 ir::For(bx, 0, 1, ir::ForKind::kThreadBinding,
                         ir::SeqStmt({ir::For(a, 0, 32, ir::ForKind::kThreadBinding,
                                              ir::BufferStore(out, a, {a}), "threadIdx.x"),
                                      ir::For(b, 0, 64, ir::ForKind::kThreadBinding,
                                              ir::BufferStore(out, b, {b}), "threadIdx.x")}),
                         "blockIdx.x"));
  ExpectError(BuildFor(f), {"function 'extents': loops bound to threadIdx.x have different "
                            "extents: 32 (loop 'a') and 64 (loop 'b')"});
}

}  // namespace
}  // namespace tessel::codegen::cuda
