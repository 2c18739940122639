// Floating-point semantics: the float intrinsics against <cmath>, float32 and float16 rounding
// after every operation, IEEE division, float floordiv/floormod.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/testing/backends.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

// Every test runs on the interpreter and through the LLVM backend (one body, two backends).
class FloatTest : public ::testing::TestWithParam<tessel::testing::Backend> {
 protected:
  absl::Status Run(const ir::PrimFunc& f, const std::vector<Arg>& args) {
    return tessel::testing::RunOn(GetParam(), f, args);
  }
};

const ir::DataType kF16 = ir::DataType::Float(16);
const ir::DataType kF32 = ir::kFloat32;
const ir::DataType kF64 = ir::DataType::Float(64);

// out[0] = make(x, y) for scalar float parameters x and y of type `type`.
template <typename R>
R Eval(ir::DataType type, const std::function<ir::Expr(const ir::Var&, const ir::Var&)>& make,
       double x, double y = 0.0) {
  ir::Var a("x", type), b("y", type);
  ir::Expr e = make(a, b);
  ir::Buffer out = ir::Buffer::Declare("out", {1}, e.dtype());
  ir::PrimFunc f("eval", {a, b, out->data}, {out}, ir::BufferStore(out, e, {0}));
  HostTensor<R> t({1});
  const absl::Status status = Run(f, {x, y, t.dl()});
  EXPECT_TRUE(status.ok()) << status;
  return t[0];
}

struct Intrinsic {
  const char* name;
  ir::Expr (*make)(ir::Expr);
  double (*reference)(double);
};

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const Intrinsic kUnary[] = {
    {"exp", ir::exp, [](double x) { return std::exp(x); }},
    {"log", ir::log, [](double x) { return std::log(x); }},
    {"sqrt", ir::sqrt, [](double x) { return std::sqrt(x); }},
    {"tanh", ir::tanh, [](double x) { return std::tanh(x); }},
    {"sigmoid", ir::sigmoid, Sigmoid},
    {"fabs", ir::fabs, [](double x) { return std::fabs(x); }},
    {"floor", ir::floor, [](double x) { return std::floor(x); }},
    {"ceil", ir::ceil, [](double x) { return std::ceil(x); }},
    {"round", ir::round, [](double x) { return std::round(x); }},
};

TEST_P(FloatTest, UnaryIntrinsicsMatchCmath) {
  for (const Intrinsic& fn : kUnary) {
    for (double x : {0.5, 1.0, 2.5, -2.5, 3.7, -0.3, 10.25}) {
      if (std::string(fn.name) == "log" || std::string(fn.name) == "sqrt") x = std::fabs(x);
      auto make = [&](const ir::Var& a, const ir::Var&) { return fn.make(a); };
      // float64: exactly the C library's double function.
      EXPECT_EQ(Eval<double>(kF64, make, x), fn.reference(x)) << fn.name << "(" << x << ")";
      // float32: the exact result rounded to float, within an ulp of C's float function.
      const float xf = static_cast<float>(x);
      const float got = Eval<float>(kF32, make, xf);
      EXPECT_EQ(got, static_cast<float>(fn.reference(xf))) << fn.name << "(" << xf << ")";
      EXPECT_NEAR(got, static_cast<float>(fn.reference(static_cast<double>(xf))),
                  std::fabs(got) * 1e-6f)
          << fn.name;
    }
  }
  EXPECT_EQ(Eval<float>(
                kF32, [](auto a, auto b) { return ir::pow(a, b); }, 1.5, 3.0),
            std::pow(1.5f, 3.0f));
  EXPECT_EQ(Eval<double>(
                kF64, [](auto a, auto b) { return ir::pow(a, b); }, 2.0, 0.5),
            std::pow(2.0, 0.5));
  EXPECT_EQ(Eval<float>(
                kF32, [](auto a, auto) { return ir::round(a); }, -2.5),
            -3.0f);
}

TEST_P(FloatTest, Float32RoundsAfterEveryOperation) {
  auto add = [](const ir::Var& a, const ir::Var& b) { return ir::Add(a, b); };
  // 2^24 + 1 is not a float: the sum rounds back to 2^24 (in double it would not).
  EXPECT_EQ(Eval<float>(kF32, add, 16777216.0, 1.0), 16777216.0f);
  // (a + b) - a in float loses b's low bits.
  auto cancel = [](const ir::Var& a, const ir::Var& b) { return ir::Sub(ir::Add(a, b), a); };
  const float a = 1.0e8f, b = 3.14159f;
  EXPECT_EQ(Eval<float>(kF32, cancel, a, b), (a + b) - a);
  EXPECT_NE(Eval<double>(kF64, cancel, a, b), static_cast<double>((a + b) - a));
  // A float argument is rounded to float when bound.
  EXPECT_EQ(Eval<float>(
                kF32, [](auto x, auto) { return ir::Mul(x, x); }, 0.1),
            0.1f * 0.1f);
}

TEST_P(FloatTest, Float32AccumulationMatchesAFloatLoopBitForBit) {
  const int n = 1000;
  ir::Buffer out = ir::Buffer::Declare("out", {1}, kF32);
  ir::Var i("i");
  ir::PrimFunc f(
      "sum", {out->data}, {out},
      ir::SeqStmt(
          {ir::BufferStore(out, ir::Expr(0.0f), {0}),
           Loop(i, n, ir::BufferStore(out, ir::BufferLoad(out, {0}) + ir::Expr(0.1f), {0}))}));
  HostTensor<float> t({1});
  ASSERT_TRUE(Run(f, {t.dl()}).ok());
  float want = 0.0f;
  for (int k = 0; k < n; ++k) want = want + 0.1f;
  EXPECT_EQ(t[0], want);
  EXPECT_NE(static_cast<double>(t[0]), 100.0);
}

TEST_P(FloatTest, Float16StoresAndRoundsToHalf) {
  auto add = [](const ir::Var& a, const ir::Var& b) { return ir::Add(a, b); };
  const _Float16 a = static_cast<_Float16>(0.1), b = static_cast<_Float16>(0.2);
  const _Float16 want = static_cast<_Float16>(static_cast<float>(a) + static_cast<float>(b));
  EXPECT_EQ(static_cast<float>(Eval<_Float16>(kF16, add, 0.1, 0.2)), static_cast<float>(want));
  // 2048 + 1 is not a half: it rounds to even, 2048.
  EXPECT_EQ(static_cast<float>(Eval<_Float16>(kF16, add, 2048.0, 1.0)), 2048.0f);
  auto widen = [](const ir::Var& x, const ir::Var&) { return ir::Cast(kF32, x); };
  EXPECT_EQ(Eval<float>(kF16, widen, 0.1), static_cast<float>(static_cast<_Float16>(0.1)));
}

TEST_P(FloatTest, DivisionFollowsIeeeAndFloorOperationsWork) {
  auto div = [](const ir::Var& a, const ir::Var& b) { return ir::Div(a, b); };
  EXPECT_EQ(Eval<float>(kF32, div, 1.0, 0.0), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Eval<float>(kF32, div, 0.0, 0.0)));
  auto floordiv = [](const ir::Var& a, const ir::Var& b) { return ir::FloorDiv(a, b); };
  auto floormod = [](const ir::Var& a, const ir::Var& b) { return ir::FloorMod(a, b); };
  auto truncmod = [](const ir::Var& a, const ir::Var& b) { return ir::Mod(a, b); };
  EXPECT_EQ(Eval<double>(kF64, floordiv, -7.0, 2.0), -4.0);
  EXPECT_EQ(Eval<double>(kF64, floormod, -7.0, 2.0), 1.0);
  EXPECT_EQ(Eval<double>(kF64, truncmod, -7.5, 2.0), std::fmod(-7.5, 2.0));
  auto min = [](const ir::Var& a, const ir::Var& b) { return ir::Min(a, b); };
  EXPECT_EQ(Eval<float>(kF32, min, -1.5, 2.0), -1.5f);
}

INSTANTIATE_TEST_SUITE_P(Backends, FloatTest, ::testing::ValuesIn(tessel::testing::AllBackends()),
                         tessel::testing::BackendParamName());

}  // namespace
}  // namespace tessel::interp
