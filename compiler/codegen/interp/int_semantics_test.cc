// Integer semantics (node.h): wrapping at each width and signedness, truncating versus flooring
// division, shifts, bit operations, popcount and conversions, against plain C++.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"
#include "compiler/testing/backends.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using Make = std::function<ir::Expr(const ir::Var&, const ir::Var&)>;

// Every test runs on the interpreter and through the LLVM backend (one body, two backends).
class IntSemanticsTest : public ::testing::TestWithParam<tessel::testing::Backend> {
 protected:
  absl::Status Run(const ir::PrimFunc& f, const std::vector<Arg>& args) {
    return tessel::testing::RunOn(GetParam(), f, args);
  }
};

const ir::DataType kI8 = ir::DataType::Int(8);
const ir::DataType kI32 = ir::kInt32;
const ir::DataType kI64 = ir::kInt64;
const ir::DataType kU8 = ir::DataType::UInt(8);
const ir::DataType kU16 = ir::DataType::UInt(16);
const ir::DataType kU32 = ir::DataType::UInt(32);
const ir::DataType kU64 = ir::DataType::UInt(64);

// out[0] = make(a, b), with a and b scalar parameters of type `type`; R is out's C type.
template <typename R>
absl::StatusOr<R> Eval(ir::DataType type, const Make& make, Arg x, Arg y) {
  ir::Var a("a", type), b("b", type);
  ir::Expr e = make(a, b);
  ir::Buffer out = ir::Buffer::Declare("out", {1}, e.dtype());
  ir::PrimFunc f("eval", {a, b, out->data}, {out}, ir::BufferStore(out, e, {0}));
  HostTensor<R> t({1});
  const absl::Status status = Run(f, {x, y, t.dl()});
  if (!status.ok()) return status;
  return t[0];
}

template <typename R>
R EvalOk(ir::DataType type, const Make& make, Arg x, Arg y) {
  absl::StatusOr<R> r = Eval<R>(type, make, x, y);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : R();
}

ir::Expr Add(const ir::Var& a, const ir::Var& b) { return ir::Add(a, b); }
ir::Expr Sub(const ir::Var& a, const ir::Var& b) { return ir::Sub(a, b); }
ir::Expr Mul(const ir::Var& a, const ir::Var& b) { return ir::Mul(a, b); }
ir::Expr TruncDiv(const ir::Var& a, const ir::Var& b) { return ir::Div(a, b); }
ir::Expr TruncMod(const ir::Var& a, const ir::Var& b) { return ir::Mod(a, b); }
ir::Expr FloorDiv(const ir::Var& a, const ir::Var& b) { return ir::FloorDiv(a, b); }
ir::Expr FloorMod(const ir::Var& a, const ir::Var& b) { return ir::FloorMod(a, b); }

TEST_P(IntSemanticsTest, Int8Wraps) {
  for (int a : {100, -100, 127, -128, 5}) {
    for (int b : {100, -100, 1, -1, 16}) {
      EXPECT_EQ(EvalOk<int8_t>(kI8, Add, a, b), static_cast<int8_t>(static_cast<uint8_t>(a + b)));
      EXPECT_EQ(EvalOk<int8_t>(kI8, Sub, a, b), static_cast<int8_t>(static_cast<uint8_t>(a - b)));
      EXPECT_EQ(EvalOk<int8_t>(kI8, Mul, a, b), static_cast<int8_t>(static_cast<uint8_t>(a * b)));
    }
  }
  // -128 / -1 overflows: it wraps back to -128.
  EXPECT_EQ(EvalOk<int8_t>(kI8, TruncDiv, -128, -1), -128);
  EXPECT_EQ(EvalOk<int8_t>(kI8, TruncMod, -128, -1), 0);
}

TEST_P(IntSemanticsTest, Int32Wraps) {
  const int64_t max = std::numeric_limits<int32_t>::max();
  const int64_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(EvalOk<int32_t>(kI32, Add, max, 1), min);
  EXPECT_EQ(EvalOk<int32_t>(kI32, Sub, min, 1), max);
  EXPECT_EQ(EvalOk<int32_t>(kI32, Mul, 65536, 65536), 0);
  EXPECT_EQ(EvalOk<int32_t>(kI32, Mul, 123456789, 1000),
            static_cast<int32_t>(static_cast<uint32_t>(123456789u * 1000u)));
  EXPECT_EQ(EvalOk<int32_t>(kI32, TruncDiv, min, -1), min);
}

TEST_P(IntSemanticsTest, Int64ExtremesWrap) {
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(EvalOk<int64_t>(kI64, TruncDiv, min, -1), min);
  EXPECT_EQ(EvalOk<int64_t>(kI64, TruncMod, min, -1), 0);
  EXPECT_EQ(EvalOk<int64_t>(kI64, FloorDiv, min, -1), min);
  EXPECT_EQ(EvalOk<int64_t>(kI64, FloorMod, min, -1), 0);
  EXPECT_EQ(EvalOk<int64_t>(kI64, Add, std::numeric_limits<int64_t>::max(), 1), min);
}

TEST_P(IntSemanticsTest, UInt8Wraps) {
  EXPECT_EQ(EvalOk<uint8_t>(kU8, Add, 200, 100), 44);
  EXPECT_EQ(EvalOk<uint8_t>(kU8, Sub, 3, 5), 254);
  EXPECT_EQ(EvalOk<uint8_t>(kU8, Mul, 16, 17), 16);
  EXPECT_EQ(EvalOk<uint8_t>(kU8, TruncDiv, 250, 7), 35);
  // A uint8 argument must fit.
  EXPECT_FALSE(Eval<uint8_t>(kU8, Add, 256, 0).ok());
}

TEST_P(IntSemanticsTest, UnsignedWideValuesCompareAndDivideUnsigned) {
  EXPECT_EQ(EvalOk<uint32_t>(kU32, TruncDiv, 4000000000LL, 7), 4000000000u / 7u);
  EXPECT_EQ(EvalOk<uint8_t>(
                kU32, [](auto a, auto b) { return ir::LT(a, b); }, 4000000000LL, 1),
            0);
  // uint64 arguments are bit patterns: -1 is the largest value.
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(EvalOk<uint64_t>(kU64, TruncDiv, -1, 2), max / 2);
  EXPECT_EQ(EvalOk<uint64_t>(kU64, TruncMod, -1, 10), max % 10);
  EXPECT_EQ(EvalOk<uint64_t>(
                kU64, [](auto a, auto b) { return ir::Max(a, b); }, -1, 1),
            max);
  EXPECT_EQ(EvalOk<uint8_t>(
                kU64, [](auto a, auto b) { return ir::GT(a, b); }, -1, 1),
            1);
}

TEST_P(IntSemanticsTest, TruncatingAndFlooringDivisionOnNegativeOperands) {
  for (int a = -9; a <= 9; ++a) {
    for (int b = -4; b <= 4; ++b) {
      if (b == 0) continue;
      const int floor_div = static_cast<int>(std::floor(static_cast<double>(a) / b));
      const int floor_mod = a - floor_div * b;
      EXPECT_EQ(EvalOk<int32_t>(kI32, TruncDiv, a, b), a / b) << a << " / " << b;
      EXPECT_EQ(EvalOk<int32_t>(kI32, TruncMod, a, b), a % b) << a << " % " << b;
      EXPECT_EQ(EvalOk<int32_t>(kI32, FloorDiv, a, b), floor_div) << a << " // " << b;
      EXPECT_EQ(EvalOk<int32_t>(kI32, FloorMod, a, b), floor_mod) << a << " mod " << b;
      EXPECT_EQ(EvalOk<int8_t>(kI8, FloorDiv, a, b), floor_div) << a << " // " << b;
      EXPECT_EQ(EvalOk<int8_t>(kI8, FloorMod, a, b), floor_mod) << a << " mod " << b;
    }
  }
  // node.h's examples.
  EXPECT_EQ(EvalOk<int32_t>(kI32, TruncDiv, -7, 2), -3);
  EXPECT_EQ(EvalOk<int32_t>(kI32, TruncMod, -7, 2), -1);
  EXPECT_EQ(EvalOk<int32_t>(kI32, FloorDiv, -7, 2), -4);
  EXPECT_EQ(EvalOk<int32_t>(kI32, FloorMod, -7, 2), 1);
}

TEST_P(IntSemanticsTest, Shifts) {
  auto shl = [](const ir::Var& a, const ir::Var& b) { return ir::shift_left(a, b); };
  auto shr = [](const ir::Var& a, const ir::Var& b) { return ir::shift_right(a, b); };
  EXPECT_EQ(EvalOk<int32_t>(kI32, shl, 1, 31), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(EvalOk<int32_t>(kI32, shl, 3, 4), 48);
  EXPECT_EQ(EvalOk<int32_t>(kI32, shr, -16, 2), -4);  // arithmetic for signed types
  EXPECT_EQ(EvalOk<uint8_t>(kU8, shr, 200, 3), 25);   // logical for unsigned ones
  EXPECT_EQ(EvalOk<uint8_t>(kU8, shl, 200, 1), 144);  // wraps to 8 bits
  EXPECT_EQ(EvalOk<uint64_t>(kU64, shr, -1, 60), 15u);
  EXPECT_EQ(EvalOk<int8_t>(kI8, shl, 1, 7), -128);
}

TEST_P(IntSemanticsTest, PopcountAndBitwiseOperations) {
  auto pop = [](const ir::Var& a, const ir::Var&) { return ir::popcount(a); };
  EXPECT_EQ(EvalOk<int8_t>(kI8, pop, -1, 0), 8);
  EXPECT_EQ(EvalOk<int32_t>(kI32, pop, -1, 0), 32);
  EXPECT_EQ(EvalOk<int32_t>(kI32, pop, 0x12345678, 0), std::popcount(0x12345678u));
  EXPECT_EQ(EvalOk<uint16_t>(kU16, pop, 0xF0F0, 0), 8);
  EXPECT_EQ(EvalOk<int64_t>(kI64, pop, std::numeric_limits<int64_t>::min(), 0), 1);
  EXPECT_EQ(EvalOk<uint64_t>(kU64, pop, -1, 0), 64u);

  auto band = [](const ir::Var& a, const ir::Var& b) { return ir::bitwise_and(a, b); };
  auto bor = [](const ir::Var& a, const ir::Var& b) { return ir::bitwise_or(a, b); };
  auto bxor = [](const ir::Var& a, const ir::Var& b) { return ir::bitwise_xor(a, b); };
  auto bnot = [](const ir::Var& a, const ir::Var&) { return ir::bitwise_not(a); };
  EXPECT_EQ(EvalOk<int8_t>(kI8, band, -86, 0x0F), static_cast<int8_t>(-86 & 0x0F));
  EXPECT_EQ(EvalOk<int8_t>(kI8, bor, 0x40, 0x30), 0x70);
  EXPECT_EQ(EvalOk<int8_t>(kI8, bxor, -1, 0x0F), static_cast<int8_t>(~0x0F));
  EXPECT_EQ(EvalOk<int8_t>(kI8, bnot, 0x0F, 0), static_cast<int8_t>(~0x0F));
  EXPECT_EQ(EvalOk<uint8_t>(kU8, bnot, 0x0F, 0), 0xF0);
}

TEST_P(IntSemanticsTest, Conversions) {
  auto to = [](ir::DataType t) {
    return [t](const ir::Var& a, const ir::Var&) { return ir::Cast(t, a); };
  };
  EXPECT_EQ(EvalOk<int8_t>(kI32, to(kI8), 300, 0), static_cast<int8_t>(300 - 256));
  EXPECT_EQ(EvalOk<uint8_t>(kI32, to(kU8), -1, 0), 255);
  EXPECT_EQ(EvalOk<uint32_t>(kI32, to(kU32), -1, 0), 4294967295u);
  EXPECT_EQ(EvalOk<int64_t>(kU32, to(kI64), 4000000000LL, 0), 4000000000LL);
  EXPECT_EQ(EvalOk<int32_t>(ir::kFloat32, to(kI32), 2.7, 0.0), 2);
  EXPECT_EQ(EvalOk<int32_t>(ir::kFloat32, to(kI32), -2.7, 0.0), -2);
  EXPECT_EQ(EvalOk<uint8_t>(kI32, to(ir::kBool), 5, 0), 1);
  EXPECT_EQ(EvalOk<uint8_t>(ir::kFloat32, to(ir::kBool), 0.5, 0.0), 1);
  EXPECT_EQ(EvalOk<uint8_t>(ir::kFloat32, to(ir::kBool), 0.0, 0.0), 0);
  // To uint1 keeps the low bit; to bool tests for non-zero.
  auto via_uint1 = [](const ir::Var& a, const ir::Var&) {
    return ir::Cast(kI32, ir::Cast(ir::DataType::UInt(1), a));
  };
  EXPECT_EQ(EvalOk<int32_t>(kI32, via_uint1, 2, 0), 0);
  EXPECT_EQ(EvalOk<int32_t>(kI32, via_uint1, 3, 0), 1);
  // int64 to float32 rounds once, as C does.
  const int64_t big = (int64_t{1} << 40) + 1;
  EXPECT_EQ(EvalOk<float>(kI64, to(ir::kFloat32), big, 0), static_cast<float>(big));
  EXPECT_EQ(EvalOk<double>(kU64, to(ir::DataType::Float(64)), -1, 0),
            static_cast<double>(std::numeric_limits<uint64_t>::max()));
}

INSTANTIATE_TEST_SUITE_P(Backends, IntSemanticsTest,
                         ::testing::ValuesIn(tessel::testing::AllBackends()),
                         tessel::testing::BackendParamName());

}  // namespace
}  // namespace tessel::interp
