// Launch extents: evaluation with C and floor division, the text form both ways, malformed text.
#include "compiler/runtime/launch_expr.h"

#include <gtest/gtest.h>

namespace tessel::runtime {
namespace {

using Op = LaunchExpr::Op;

TEST(LaunchExprTest, EvaluatesOverSlots) {
  // ceil(n / 64) with n in slot 2.
  LaunchExpr e = LaunchExpr::Binary(
      Op::kDiv, LaunchExpr::Binary(Op::kAdd, LaunchExpr::Slot(2), LaunchExpr::Constant(63)),
      LaunchExpr::Constant(64));
  const uint64_t slots[] = {0, 0, 1000};
  EXPECT_EQ(*e.Evaluate(slots, 3), 16);
  EXPECT_FALSE(e.is_constant());
  EXPECT_EQ(e.ToString(), "$2 63 + 64 /");
  EXPECT_FALSE(e.Evaluate(slots, 2).ok());  // slot 2 is past the slots given
}

TEST(LaunchExprTest, FloorAndTruncatingDivisionDiffer) {
  const uint64_t slots[] = {static_cast<uint64_t>(int64_t{-7})};
  auto eval = [&](Op op) {
    return *LaunchExpr::Binary(op, LaunchExpr::Slot(0), LaunchExpr::Constant(2)).Evaluate(slots, 1);
  };
  EXPECT_EQ(eval(Op::kDiv), -3);
  EXPECT_EQ(eval(Op::kMod), -1);
  EXPECT_EQ(eval(Op::kFloorDiv), -4);
  EXPECT_EQ(eval(Op::kFloorMod), 1);
  EXPECT_EQ(eval(Op::kMin), -7);
  EXPECT_EQ(eval(Op::kMax), 2);
  absl::StatusOr<int64_t> by_zero =
      LaunchExpr::Binary(Op::kDiv, LaunchExpr::Slot(0), LaunchExpr::Constant(0)).Evaluate(slots, 1);
  ASSERT_FALSE(by_zero.ok());
  EXPECT_NE(by_zero.status().message().find("divides by zero"), std::string::npos);
}

TEST(LaunchExprTest, ComparisonsAndSelect) {
  // select(r < 0, q - 1, q) with r = n % 4 and q = n / 4: floor division as lowered IR writes it.
  const LaunchExpr n = LaunchExpr::Slot(0), four = LaunchExpr::Constant(4);
  const LaunchExpr r = LaunchExpr::Binary(Op::kMod, n, four), q = LaunchExpr::Binary(Op::kDiv, n, four);
  const LaunchExpr e = LaunchExpr::Select(
      LaunchExpr::Binary(Op::kLT, r, LaunchExpr::Constant(0)),
      LaunchExpr::Binary(Op::kSub, q, LaunchExpr::Constant(1)), q);
  for (int64_t v : {-9, -8, -1, 0, 3, 9}) {
    const uint64_t slots[] = {static_cast<uint64_t>(v)};
    const int64_t want = v >= 0 ? v / 4 : -((-v + 3) / 4);
    EXPECT_EQ(*e.Evaluate(slots, 1), want) << v;
  }
  EXPECT_EQ(LaunchExpr::Parse(e.ToString())->ToString(), e.ToString());
}

TEST(LaunchExprTest, TextRoundTripsAndMalformedTextIsNamed) {
  for (const char* text : {"1", "$0 3 fdiv", "$1 $0 * 7 fmod 2 max 5 min", "-4 $3 - 2 %",
                           "$0 0 < 1 2 select", "$0 1 >= $1 2 != && 0 ||"}) {
    absl::StatusOr<LaunchExpr> e = LaunchExpr::Parse(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status();
    EXPECT_EQ(e->ToString(), text);
  }
  absl::StatusOr<LaunchExpr> bad = LaunchExpr::Parse("$0 +");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unexpected token '+'"), std::string::npos) << bad.status();
  EXPECT_FALSE(LaunchExpr::Parse("1 2").ok());
  EXPECT_FALSE(LaunchExpr::Parse("").ok());
  EXPECT_FALSE(LaunchExpr::Parse("$x").ok());
}

}  // namespace
}  // namespace tessel::runtime
