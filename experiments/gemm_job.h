#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>

#include "compiler/ops/x86/gemm.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/timer.h"

// The GEMM job behind `tessel quickstart` and `tessel bench gemm`: seeded random A and B,
// compile a schedule for the host, check its C against OpenBLAS, and time it against OpenBLAS.
namespace tessel::experiments {

struct GemmShape {
  int64_t m = 1024, n = 1024, k = 1024;
  double Gflop() const { return 2.0 * m * n * k / 1e9; }
};

// Ok for positive sizes and 1 to 1024 threads; otherwise an error naming the bad one.
absl::Status CheckGemmJob(const GemmShape& shape, int64_t threads);

class GemmJob {
 public:
  // Allocates and fills the operands; sets both Tessel's and OpenBLAS's thread counts.
  static absl::StatusOr<GemmJob> Create(const GemmShape& shape, int threads);

  // The hand-written schedule (ops/x86/gemm.h's blocked GEMM, tiled for the host's vectors).
  absl::StatusOr<ops::x86::GemmProgram> HandSchedule() const;
  // Lowers and compiles program; compile_seconds is lowering plus Build.
  absl::StatusOr<runtime::Function> Compile(const ops::x86::GemmProgram& program,
                                            double* compile_seconds) const;
  // Runs f once and compares C with OpenBLAS's; an error gives the worst element.
  absl::Status Check(const runtime::Function& f);
  // One run of f, or of OpenBLAS.
  void Run(const runtime::Function& f);
  void RunOpenBlas();

  const GemmShape& shape() const { return shape_; }
  // The operands: A and B, C as the last Run of a compiled function left it, OpenBLAS's C.
  const runtime::NDArray& a() const { return a_; }
  const runtime::NDArray& b() const { return b_; }
  const runtime::NDArray& c() const { return c_; }
  const runtime::NDArray& c_blas() const { return c_blas_; }
  int threads() const { return threads_; }

 private:
  GemmJob(GemmShape shape, int threads);

  GemmShape shape_;
  int threads_;
  runtime::NDArray a_, b_, c_, c_blas_;
};

// Ok when C (got) equals OpenBLAS's (want) within float32 rounding of sums of k products.
absl::Status CompareGemmOutputs(const runtime::NDArray& got, const runtime::NDArray& want,
                                int64_t k);

}  // namespace tessel::experiments
