// The LLVM backend beyond what the interpreter's tests cover: parallel loops on the thread pool,
// heap allocations, assertions, refused IR, fast-math flags, noalias and alignment, vector types,
// and target strings.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "compiler/codegen/build.h"
#include "compiler/ir/op.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/llvm_target.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"

// A host function that generated code calls by name (the test binary exports it: -rdynamic).
extern "C" __attribute__((used, retain)) int64_t tessel_codegen_test_triple(int64_t x) {
  return 3 * x;
}

namespace tessel::codegen::llvm_backend {
namespace {

using ir::Expr;
using ir::Var;

constexpr DLDataType kF32{kDLFloat, 32, 1};
const target::Target kHost = *target::Target::Parse("llvm -mcpu=native");

Expr Dim(int64_t v) { return ir::IntImm(ir::kInt32, v); }

runtime::NDArray Iota(std::vector<int64_t> shape, float scale = 1.0f) {
  runtime::NDArray x = runtime::NDArray::Empty(std::move(shape), kF32);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = scale * static_cast<float>(i);
  return x;
}

// out[i] = a[i] * 2 + 1 over n elements, lowered with `schedule` applied to its one axis.
ir::PrimFunc Axpy(int64_t n,
                  const std::function<void(schedule::Schedule&, const te::Tensor&)>& schedule_fn,
                  const char* name = "axpy") {
  te::Tensor a = te::placeholder({Dim(n)}, ir::kFloat32, "a");
  te::Tensor out = te::compute(
      {Dim(n)}, [&](Var i) { return a(i) * 2.0f + 1.0f; }, "out");
  schedule::Schedule s = schedule::create_schedule({out.op()});
  schedule_fn(s, out);
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, out}, name);
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

const ir::IterVar& Axis(const te::Tensor& t, int k) {
  return t.op().as<te::ComputeOpNode>()->axis[k];
}

TEST(CodegenTest, ParallelLoopRunsOnThePoolAndCoversEveryIteration) {
  runtime::ThreadPool::Global().SetNumThreads(2);
  for (int64_t n : {1, 2, 3, 1000, 1001}) {
    ir::PrimFunc f = Axpy(n, [](schedule::Schedule& s, const te::Tensor& out) {
      ASSERT_TRUE(s[out].parallel(Axis(out, 0)).ok());
    });
    absl::StatusOr<runtime::Module> m = codegen::Build({f}, kHost);
    ASSERT_TRUE(m.ok()) << m.status();
    runtime::NDArray a = Iota({n}), out = runtime::NDArray::Empty({n}, kF32);
    ASSERT_TRUE((*m->GetFunction("axpy"))({a.dl(), out.dl()}).ok());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out.data<float>()[i], 2.0f * i + 1.0f) << n << " " << i;
  }
}

TEST(CodegenTest, NestedParallelLoopsAndPerTaskAllocations) {
  // C[i, j] = sum_k A[i, k]: parallel rows and columns; a local accumulator per task.
  const int rows = 37, cols = 5, depth = 11;
  te::Tensor a = te::placeholder({Dim(rows), Dim(depth)}, ir::kFloat32, "A");
  ir::IterVar k = te::reduce_axis({0, Dim(depth)}, "k");
  te::Tensor c = te::compute(
      {Dim(rows), Dim(cols)},
      [&](Var i, Var j) { return te::sum(a(i, k) * ir::Cast(ir::kFloat32, j), {k}); }, "C");
  schedule::Schedule s = schedule::create_schedule({c.op()});
  absl::StatusOr<te::Tensor> acc = s.cache_write(c, "local");
  ASSERT_TRUE(acc.ok());
  ASSERT_TRUE(s[c].parallel(Axis(c, 0)).ok());
  ASSERT_TRUE(s[c].parallel(Axis(c, 1)).ok());
  ASSERT_TRUE(s[*acc].compute_at(s[c], Axis(c, 1)).ok());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, c}, "rowsum");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<runtime::Module> m = codegen::Build({*f}, kHost);
  ASSERT_TRUE(m.ok()) << m.status();
  runtime::NDArray ta = Iota({rows, depth}, 0.5f), tc = runtime::NDArray::Empty({rows, cols}, kF32);
  ASSERT_TRUE((*m->GetFunction("rowsum"))({ta.dl(), tc.dl()}).ok());
  for (int i = 0; i < rows; ++i) {
    float sum = 0;
    for (int r = 0; r < depth; ++r) sum += ta.data<float>()[i * depth + r];
    for (int j = 0; j < cols; ++j) ASSERT_FLOAT_EQ(tc.data<float>()[i * cols + j], sum * j);
  }
}

TEST(CodegenTest, LargeAllocationsLiveOnTheHeap) {
  // A 1 MiB intermediate (past the 64 KiB stack limit) between two stages.
  const int n = 1 << 18;
  te::Tensor a = te::placeholder({Dim(n)}, ir::kFloat32, "a");
  te::Tensor mid = te::compute(
      {Dim(n)}, [&](Var i) { return a(i) + 1.0f; }, "mid");
  te::Tensor out = te::compute(
      {Dim(n)}, [&](Var i) { return mid(n - 1 - i) * 3.0f; }, "out");
  schedule::Schedule s = schedule::create_schedule({out.op()});
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, out}, "reverse");
  ASSERT_TRUE(f.ok()) << f.status();
  std::ostringstream ir_text;
  codegen::BuildOptions options;
  options.dump_ir = &ir_text;
  absl::StatusOr<runtime::Module> m = codegen::Build({*f}, kHost, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_NE(ir_text.str().find("@aligned_alloc"), std::string::npos);
  runtime::NDArray ta = Iota({n}), tout = runtime::NDArray::Empty({n}, kF32);
  ASSERT_TRUE((*m->GetFunction("reverse"))({ta.dl(), tout.dl()}).ok());
  for (int i = 0; i < n; i += 997) ASSERT_EQ(tout.data<float>()[i], (n - 1 - i + 1.0f) * 3.0f);
}

TEST(CodegenTest, FailedAssertionReportsItsMessageAndFunction) {
  ir::Var x("x");
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  ir::PrimFunc f("checked", {x, out->data}, {out},
                 ir::AssertStmt(x > 0, "x must be positive", ir::BufferStore(out, x * 2, {0})));
  absl::StatusOr<runtime::Module> m = codegen::Build({f}, kHost);
  ASSERT_TRUE(m.ok()) << m.status();
  runtime::NDArray t = runtime::NDArray::Empty({1}, {kDLInt, 32, 1});
  absl::StatusOr<runtime::Function> fn = m->GetFunction("checked");
  ASSERT_TRUE((*fn)({int64_t{21}, t.dl()}).ok());
  EXPECT_EQ(t.data<int32_t>()[0], 42);
  const absl::Status bad = (*fn)({int64_t{-1}, t.dl()});
  EXPECT_EQ(bad.message(), "function 'checked' failed: checked: x must be positive");
}

TEST(CodegenTest, GpuThreadBindingIsRefusedWithTheLoopAndTag) {
  ir::PrimFunc f = Axpy(64, [](schedule::Schedule& s, const te::Tensor& out) {
    ASSERT_TRUE(s[out].bind(Axis(out, 0), "threadIdx.x").ok());
  });
  absl::StatusOr<runtime::Module> m = codegen::Build({f}, kHost);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(
      m.status().message().find("is bound to threadIdx.x; the llvm target runs no GPU threads"),
      std::string::npos)
      << m.status();
  EXPECT_NE(m.status().message().find("function 'axpy'"), std::string::npos) << m.status();
}

TEST(CodegenTest, CallExternCallsAHostFunctionByName) {
  ir::Buffer out = ir::Buffer::Declare("out", {4}, ir::kInt64);
  ir::Var i("i");
  ir::Expr call = ir::Call(ir::kInt64, ir::Intrinsic::kCallExtern,
                           {ir::StringImm("tessel_codegen_test_triple"), ir::Cast(ir::kInt64, i)});
  ir::PrimFunc f("extern_call", {out->data}, {out},
                 ir::For(i, 0, 4, ir::ForKind::kSerial, ir::BufferStore(out, call, {i})));
  absl::StatusOr<runtime::Module> m = codegen::Build({f}, kHost);
  ASSERT_TRUE(m.ok()) << m.status();
  runtime::NDArray t = runtime::NDArray::Empty({4}, {kDLInt, 64, 1});
  ASSERT_TRUE((*m->GetFunction("extern_call"))({t.dl()}).ok());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(t.data<int64_t>()[k], 3 * k);

  // A name the process does not define is refused, naming both functions.
  ir::PrimFunc missing("missing_call", {out->data}, {out},
                       ir::BufferStore(out,
                                       ir::Call(ir::kInt64, ir::Intrinsic::kCallExtern,
                                                {ir::StringImm("no_such_function_anywhere")}),
                                       {0}));
  absl::StatusOr<runtime::Module> bad = codegen::Build({missing}, kHost);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "function 'missing_call': call_extern 'no_such_function_anywhere' names no "
                "function of this process"),
            std::string::npos)
      << bad.status();
}

TEST(CodegenTest, DuplicateFunctionNamesAreRefused) {
  ir::PrimFunc f = Axpy(8, [](schedule::Schedule&, const te::Tensor&) {});
  absl::StatusOr<runtime::Module> m = codegen::Build({f, f}, kHost);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "function 'axpy': a function of this name exists");
}

// A stored value that binds let variables (round lowers to lets) while the store's buffer is
// looked up: vectorized rounds, serial and parallel, compile and compute what std::round does.
// (The store once held an iterator into the variable map across the value's emission, which a
// let's insertion invalidated: a crash under AddressSanitizer, and at random without it.)
TEST(CodegenTest, StoredValuesWithLetsRoundLikeStdRound) {
  runtime::ThreadPool::Global().SetNumThreads(2);
  for (bool parallel : {false, true}) {
    const int64_t n = 200704;
    te::Tensor a = te::placeholder({Dim(n)}, ir::kFloat32, "a");
    te::Tensor out = te::compute(
        {Dim(n)}, [&](Var i) { return ir::round(a(i)); }, "out");
    schedule::Schedule s = schedule::create_schedule({out.op()});
    auto split = s[out].split(Axis(out, 0), 8);
    ASSERT_TRUE(split.ok());
    ASSERT_TRUE(s[out].vectorize(split->inner).ok());
    if (parallel) {
      ASSERT_TRUE(s[out].parallel(split->outer).ok());
    }
    absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, out}, "round");
    ASSERT_TRUE(f.ok()) << f.status();
    absl::StatusOr<runtime::Module> m = codegen::Build({*f}, kHost);
    ASSERT_TRUE(m.ok()) << m.status();
    runtime::NDArray x = Iota({n}, 0.25f), y = runtime::NDArray::Empty({n}, kF32);
    for (int64_t i = 0; i < n; ++i) x.data<float>()[i] -= 1000.0f;  // halves of both signs
    ASSERT_TRUE((*m->GetFunction("round"))({x.dl(), y.dl()}).ok());
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(y.data<float>()[i], std::round(x.data<float>()[i])) << x.data<float>()[i];
    }
  }
}

// The IR after optimization (or, with `assembly`, the assembly) of a*b+c under a target string.
std::string MultiplyAddIr(const std::string& target_text, bool assembly = false) {
  const int n = 64;
  te::Tensor a = te::placeholder({Dim(n)}, ir::kFloat32, "a");
  te::Tensor b = te::placeholder({Dim(n)}, ir::kFloat32, "b");
  te::Tensor out = te::compute(
      {Dim(n)}, [&](Var i) { return a(i) * b(i) + 1.0f; }, "out");
  schedule::Schedule s = schedule::create_schedule({out.op()});
  auto split = s[out].split(Axis(out, 0), 16);
  EXPECT_TRUE(split.ok());
  EXPECT_TRUE(s[out].vectorize(split->inner).ok());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, b, out}, "fma");
  std::ostringstream text;
  codegen::BuildOptions options;
  (assembly ? options.dump_asm : options.dump_ir) = &text;
  absl::StatusOr<runtime::Module> m =
      codegen::Build({*f}, *target::Target::Parse(target_text), options);
  EXPECT_TRUE(m.ok()) << m.status();
  return text.str();
}

TEST(CodegenTest, FastMathFlagsOnlyWhereTheTargetAllowsThem) {
  const std::string strict = MultiplyAddIr("llvm -mcpu=native");
  EXPECT_EQ(strict.find("fmul fast"), std::string::npos);
  EXPECT_EQ(strict.find("contract"), std::string::npos);
  EXPECT_NE(strict.find("fmul <16 x float>"), std::string::npos);
  EXPECT_NE(
      MultiplyAddIr("llvm -mcpu=native -fast-math-contract").find("fmul contract <16 x float>"),
      std::string::npos);
  EXPECT_NE(MultiplyAddIr("llvm -mcpu=native -fast-math").find("fmul fast <16 x float>"),
            std::string::npos);
}

TEST(CodegenTest, BufferArgumentsAreNoaliasAndAligned) {
  const std::string text = MultiplyAddIr("llvm -mcpu=native");
  EXPECT_NE(text.find("ptr noalias align 64 %a"), std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("ptr noalias align 64 %out"), std::string::npos);
}

TEST(TargetTest, TargetStringsAreCheckedAndResolved) {
  absl::StatusOr<target::Target> t = target::Target::Parse("llvm -mcpu=znver3 -mattr=+avx2,+fma");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<target::LlvmTarget> resolved = target::ResolveLlvmTarget(*t);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->cpu, "znver3");
  EXPECT_EQ(resolved->vector_bits, 256);
  absl::StatusOr<target::LlvmTarget> native =
      target::ResolveLlvmTarget(*target::Target::Parse("llvm -mcpu=native"));
  ASSERT_TRUE(native.ok());
  EXPECT_NE(native->cpu, "native");
  EXPECT_TRUE(native->is_host);

  auto error = [](const std::string& text) {
    absl::StatusOr<target::Target> parsed = target::Target::Parse(text);
    if (!parsed.ok()) return std::string(parsed.status().message());
    absl::StatusOr<target::LlvmTarget> r = target::ResolveLlvmTarget(*parsed);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_EQ(error("rocm"), "target 'rocm': unknown kind 'rocm' (known: cuda, llvm, opencl, vdla)");
  EXPECT_EQ(error("cuda"), "target 'cuda' is not an llvm target");
  EXPECT_EQ(error("llvm -mfoo=1"),
            "target 'llvm -mfoo=1': option '-mfoo=1' is not known for kind 'llvm'");
  EXPECT_EQ(error("llvm mcpu=x"), "target 'llvm mcpu=x': option 'mcpu=x' does not start with '-'");
  EXPECT_EQ(error("llvm -mcpu"), "target 'llvm -mcpu': option '-mcpu' needs a value (-key=value)");
  EXPECT_EQ(error("llvm -mcpu=a -mcpu=b"),
            "target 'llvm -mcpu=a -mcpu=b': option '-mcpu=b' is given twice");
  EXPECT_EQ(error("llvm -mcpu=pentium9"),
            "target 'llvm -mcpu=pentium9': unknown -mcpu 'pentium9' for x86_64");
  EXPECT_EQ(error("llvm -opt-level=7"),
            "target 'llvm -opt-level=7': -opt-level must be 0, 1, 2 or 3, not '7'");
  EXPECT_EQ(error("llvm -mattr=avx2"),
            "target 'llvm -mattr=avx2': -mattr entry 'avx2' must start with + or -");
  EXPECT_NE(error("llvm -mtriple=aarch64-linux-gnu -mcpu=native")
                .find("-mcpu=native describes this host"),
            std::string::npos);
  EXPECT_NE(error("llvm -mtriple=nonsense-arch").find("unknown -mtriple"), std::string::npos);
}

// -mcpu=native named: the host CPU's name and its vector-feature differences from that CPU's
// defaults, which compile to the same code as native (the assembly is the independent check).
TEST(TargetTest, NativeIsNamedAsTheHostCpu) {
  absl::StatusOr<target::LlvmTarget> native =
      target::ResolveLlvmTarget(*target::Target::Parse("llvm -mcpu=native"));
  ASSERT_TRUE(native.ok()) << native.status();
  absl::StatusOr<std::string> named =
      target::NameNativeCpu(*target::Target::Parse("llvm -mcpu=native -fast-math-contract"));
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->rfind("llvm -mcpu=" + native->cpu + " -fast-math-contract", 0), 0u) << *named;
  EXPECT_EQ(named->find("native"), std::string::npos) << *named;
  absl::StatusOr<target::LlvmTarget> resolved =
      target::ResolveLlvmTarget(*target::Target::Parse(*named));
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->vector_bits, native->vector_bits);
  EXPECT_TRUE(resolved->runs_here) << resolved->missing_features;
  EXPECT_EQ(MultiplyAddIr(*named, /*assembly=*/true),
            MultiplyAddIr("llvm -mcpu=native -fast-math-contract", /*assembly=*/true));

  // The user's -mattr comes last, so it still wins; a named CPU comes back as given.
  absl::StatusOr<std::string> without_fma =
      target::NameNativeCpu(*target::Target::Parse("llvm -mcpu=native -mattr=-fma"));
  ASSERT_TRUE(without_fma.ok());
  EXPECT_TRUE(without_fma->ends_with("-fma")) << *without_fma;
  EXPECT_EQ(*target::NameNativeCpu(*target::Target::Parse("llvm -mcpu=haswell")),
            "llvm -mcpu=haswell");
  EXPECT_FALSE(
      target::NameNativeCpu(*target::Target::Parse("llvm -mtriple=aarch64-linux-gnu -mcpu=native"))
          .ok());
}

// Code for a CPU with features this one lacks compiles, links, and refuses to run.
TEST(TargetTest, ATargetThisCpuCannotRunSaysWhy) {
  absl::StatusOr<target::LlvmTarget> native =
      target::ResolveLlvmTarget(*target::Target::Parse("llvm -mcpu=native"));
  ASSERT_TRUE(native.ok());
  EXPECT_TRUE(native->runs_here);
  EXPECT_TRUE(target::ResolveLlvmTarget(*target::Target::Parse("llvm"))->runs_here);
  absl::StatusOr<target::LlvmTarget> avx512 =
      target::ResolveLlvmTarget(*target::Target::Parse("llvm -mcpu=skylake-avx512"));
  ASSERT_TRUE(avx512.ok());
  EXPECT_EQ(avx512->vector_bits, 512);
  EXPECT_EQ(avx512->runs_here, native->vector_bits >= 512) << avx512->missing_features;
  if (avx512->runs_here) return;
  EXPECT_NE(avx512->missing_features.find("avx512f"), std::string::npos)
      << avx512->missing_features;
  te::Tensor a = te::placeholder({Dim(8)}, ir::kFloat32, "a");
  te::Tensor out = te::compute(
      {Dim(8)}, [&](Var i) { return a(i) + 1.0f; }, "out");
  absl::StatusOr<ir::PrimFunc> f =
      transforms::Lower(schedule::create_schedule({out.op()}), {a, out}, "add1");
  ASSERT_TRUE(f.ok()) << f.status();
  absl::StatusOr<runtime::Module> m =
      codegen::Build({*f}, *target::Target::Parse("llvm -mcpu=skylake-avx512"));
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<runtime::Function> fn = m->GetFunction("add1");
  ASSERT_FALSE(fn.ok());
  EXPECT_NE(fn.status().message().find("uses instructions this CPU lacks (avx512"),
            std::string::npos)
      << fn.status();
}

}  // namespace
}  // namespace tessel::codegen::llvm_backend
