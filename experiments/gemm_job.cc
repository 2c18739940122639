#include "experiments/gemm_job.h"

#include <absl/strings/str_cat.h>
#include <cblas-openblas.h>

#include <chrono>
#include <cmath>
#include <random>

#include "compiler/codegen/build.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/target/host_target.h"
#include "compiler/target/llvm_target.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::experiments {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};

void FillRandom(runtime::NDArray& x, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) p[i] = dist(rng);
}

}  // namespace

GemmJob::GemmJob(GemmShape shape, int threads) : shape_(shape), threads_(threads) {}

absl::Status CheckGemmJob(const GemmShape& shape, int64_t threads) {
  if (shape.m < 1 || shape.n < 1 || shape.k < 1) {
    return absl::InvalidArgumentError(absl::StrCat("GEMM sizes must be positive, got m=", shape.m,
                                                   " n=", shape.n, " k=", shape.k));
  }
  if (threads < 1 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads must be between 1 and 1024, got ", threads));
  }
  return absl::OkStatus();
}

absl::StatusOr<GemmJob> GemmJob::Create(const GemmShape& shape, int threads) {
  if (absl::Status s = CheckGemmJob(shape, threads); !s.ok()) return s;
  GemmJob job(shape, threads);
  job.a_ = runtime::NDArray::Empty({shape.m, shape.k}, kF32);
  job.b_ = runtime::NDArray::Empty({shape.k, shape.n}, kF32);
  job.c_ = runtime::NDArray::Empty({shape.m, shape.n}, kF32);
  job.c_blas_ = runtime::NDArray::Empty({shape.m, shape.n}, kF32);
  FillRandom(job.a_, 1);
  FillRandom(job.b_, 2);
  runtime::ThreadPool::Global().SetNumThreads(threads);
  openblas_set_num_threads(threads);
  return job;
}

absl::StatusOr<ops::x86::GemmProgram> GemmJob::HandSchedule() const {
  absl::StatusOr<target::LlvmTarget> t = target::ResolveLlvmTarget(target::NativeTarget());
  if (!t.ok()) return t.status();
  return ops::x86::GemmBlocked(shape_.m, shape_.n, shape_.k,
                               ops::x86::DefaultGemmTiling(t->vector_bits));
}

absl::StatusOr<runtime::Function> GemmJob::Compile(const ops::x86::GemmProgram& program,
                                                   double* compile_seconds) const {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ir::PrimFunc> lowered = transforms::Lower(program.schedule, program.args, "gemm");
  if (!lowered.ok()) return lowered.status();
  absl::StatusOr<runtime::Module> module = codegen::Build({*lowered}, target::NativeTarget());
  if (!module.ok()) return module.status();
  absl::StatusOr<runtime::Function> f = module->GetFunction("gemm");
  if (compile_seconds != nullptr) {
    *compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return f;
}

void GemmJob::Run(const runtime::Function& f) {
  // The arguments were checked once by Check; a failure here is a bug worth stopping for.
  const absl::Status s = f({a_.dl(), b_.dl(), c_.dl()});
  if (!s.ok()) std::abort();
}

void GemmJob::RunOpenBlas() {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(shape_.m),
              static_cast<blasint>(shape_.n), static_cast<blasint>(shape_.k), 1.0f,
              a_.data<float>(), static_cast<blasint>(shape_.k), b_.data<float>(),
              static_cast<blasint>(shape_.n), 0.0f, c_blas_.data<float>(),
              static_cast<blasint>(shape_.n));
}

absl::Status GemmJob::Check(const runtime::Function& f) {
  float* c = c_.data<float>();
  std::fill(c, c + c_.NumElements(), NAN);
  if (absl::Status s = f({a_.dl(), b_.dl(), c_.dl()}); !s.ok()) return s;
  RunOpenBlas();
  return CompareGemmOutputs(c_, c_blas_, shape_.k);
}

absl::Status CompareGemmOutputs(const runtime::NDArray& got, const runtime::NDArray& want,
                                int64_t k) {
  if (got.shape() != want.shape() || got.shape().size() != 2) {
    return absl::InternalError("C has another shape than OpenBLAS's");
  }
  const int64_t n = got.shape()[1];
  // Sums of k products of values in [-1, 1): rounding differences grow like sqrt(k).
  const double tolerance = 1e-5 * std::sqrt(static_cast<double>(k)) * 8;
  const float* c = got.data<float>();
  const float* w = want.data<float>();
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double diff = std::fabs(static_cast<double>(c[i]) - w[i]);
    if (!(diff <= tolerance * (1 + std::fabs(w[i])))) {
      return absl::InternalError(
          absl::StrCat("C[", i / n, ", ", i % n, "] is ", c[i], " but OpenBLAS computes ", w[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::experiments
