// Fig. 7's matmul kernels: the lowered programs (thread blocks, shared tiles, barriers) run on the
// interpreter and match a float64 matmul of the same inputs; assembled for sm_90 they use the
// shared memory the tiles need (none without cooperative fetching) and spill nothing.
#include "compiler/ops/cuda/matmul_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/codegen/cuda/build_cuda.h"
#include "compiler/codegen/interp/interp.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/target/gpu_facts.h"

namespace tessel::ops::cuda {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

class MatmulKernelTest : public ::testing::TestWithParam<bool> {};

TEST_P(MatmulKernelTest, MatchesFloat64OnTheInterpreter) {
  MatmulKernelOptions o;
  o.n = 64;
  o.tile = 32;
  o.threads = 8;
  o.step = 8;
  o.cooperative = GetParam();
  absl::StatusOr<ir::PrimFunc> f = MatmulKernel(o, "mm");
  ASSERT_TRUE(f.ok()) << f.status();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  runtime::NDArray a = runtime::NDArray::Empty({o.n, o.n}, kF32);
  runtime::NDArray b = runtime::NDArray::Empty({o.n, o.n}, kF32);
  runtime::NDArray c = runtime::NDArray::Empty({o.n, o.n}, kF32);
  for (int64_t e = 0; e < a.NumElements(); ++e) {
    a.data<float>()[e] = u(rng);
    b.data<float>()[e] = u(rng);
    c.data<float>()[e] = std::nanf("");
  }
  ASSERT_TRUE(interp::Run(*f, {a.dl(), b.dl(), c.dl()}).ok());
  double worst = 0;
  for (int i = 0; i < o.n; ++i) {
    for (int j = 0; j < o.n; ++j) {
      double exact = 0;
      for (int k = 0; k < o.n; ++k) {
        exact += double{a.data<float>()[i * o.n + k]} * b.data<float>()[k * o.n + j];
      }
      const double err = std::fabs(c.data<float>()[i * o.n + j] - exact);
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  }
  EXPECT_LT(worst, 1e-4);  // 64 float32 products of |x| < 1: rounding stays below 64 * 6e-8 * 64
}

TEST_P(MatmulKernelTest, AssemblesWithTheTilesSharedMemory) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  MatmulKernelOptions o;
  o.n = 1024;
  o.cooperative = GetParam();
  absl::StatusOr<ir::PrimFunc> f = MatmulKernel(o, "mm");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<target::Target> t = target::Target::Parse("cuda -arch=sm_90");
  absl::StatusOr<codegen::cuda::CudaBuild> built =
      codegen::cuda::BuildCuda({*f}, *t, *target::DescribeGpu(*t));
  ASSERT_TRUE(built.ok()) << built.status();
  const runtime::cuda::KernelResources& r = built->data.kernels[0].resources;
  EXPECT_EQ(r.shared_bytes, o.cooperative ? 2 * o.tile * o.step * 4 : 0);
  EXPECT_EQ(r.spill_store_bytes + r.spill_load_bytes, 0);
  EXPECT_GT(r.registers, 16);  // a 4 x 4 accumulator block per thread lives in registers
}

INSTANTIATE_TEST_SUITE_P(Fetching, MatmulKernelTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Cooperative" : "PerThread";
                         });

TEST(MatmulKernelErrorTest, ShapesThatDoNotTileAreNamed) {
  MatmulKernelOptions o;
  o.n = 1000;
  absl::StatusOr<ir::PrimFunc> f = MatmulKernel(o, "mm");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "matmul kernel n=1000 tile=64 threads=16 step=8: tile must divide n");
  o.n = 1024;
  o.threads = 24;
  EXPECT_NE(MatmulKernel(o, "mm").status().message().find("threads must divide tile"),
            std::string::npos);
}

}  // namespace
}  // namespace tessel::ops::cuda
