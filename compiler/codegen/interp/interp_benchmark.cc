// Throughput of the interpreter: a scalar matmul loop nest (run), and compiling it (compile).
//   bazel run --config=opt //compiler/codegen/interp:interp_benchmark
#include <benchmark/benchmark.h>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// C[i, j] += A[i, k] * B[k, j] on flat buffers: per innermost iteration 14 operations (a store,
// three loads, a multiply and an add, and eight index multiplies and adds), not counting the
// reads of variables and constants.
constexpr int kNodesPerIteration = 14;

ir::PrimFunc Matmul(int n) {
  ir::Buffer a = ir::Buffer::Declare("A", {n * n}, ir::kFloat32);
  ir::Buffer b = ir::Buffer::Declare("B", {n * n}, ir::kFloat32);
  ir::Buffer c = ir::Buffer::Declare("C", {n * n}, ir::kFloat32);
  ir::Var i("i"), j("j"), k("k");
  ir::Stmt update =
      ir::BufferStore(c,
                      ir::BufferLoad(c, {i * n + j}) +
                          ir::BufferLoad(a, {i * n + k}) * ir::BufferLoad(b, {k * n + j}),
                      {i * n + j});
  return ir::PrimFunc("matmul", {a->data, b->data, c->data}, {a, b, c},
                      Loop(i, n, Loop(j, n, Loop(k, n, update))));
}

void BM_RunScalarMatmul(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  absl::StatusOr<Program> program = Program::Compile(Matmul(n));
  HostTensor<float> a({n * n}, 1.0f), b({n * n}, 2.0f), c({n * n}, 0.0f);
  for (auto _ : state) {
    const absl::Status status = program->Run({a.dl(), b.dl(), c.dl()});
    if (!status.ok()) state.SkipWithError(std::string(status.message()).c_str());
  }
  const double iterations = static_cast<double>(n) * n * n * state.iterations();
  state.counters["iterations/s"] = benchmark::Counter(iterations, benchmark::Counter::kIsRate);
  state.counters["nodes/s"] =
      benchmark::Counter(iterations * kNodesPerIteration, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RunScalarMatmul)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_CompileMatmul(benchmark::State& state) {
  const ir::PrimFunc f = Matmul(64);
  for (auto _ : state) benchmark::DoNotOptimize(Program::Compile(f));
}
BENCHMARK(BM_CompileMatmul)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tessel::interp
