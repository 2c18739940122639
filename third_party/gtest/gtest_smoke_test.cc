// GoogleTest and GoogleMock: a parameterised test, a matcher and a death test really run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace {

using ::testing::ElementsAre;
using ::testing::Gt;

class SquareTest : public ::testing::TestWithParam<int> {};

TEST_P(SquareTest, SquareIsNotBelowValue) {
  EXPECT_THAT(GetParam() * GetParam(), ::testing::Ge(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(SmallIntegers, SquareTest, ::testing::Values(1, 2, 7));

TEST(GmockSmokeTest, MatchersDescribeContainers) {
  std::vector<int> v = {3, 1, 2};
  std::sort(v.begin(), v.end());
  EXPECT_THAT(v, ElementsAre(1, 2, 3));
  EXPECT_THAT(v.back(), Gt(2));
  // A matcher that does not hold must say so: checked through its explanation, not by failing.
  EXPECT_FALSE(::testing::Matches(ElementsAre(1, 2))(v));
}

TEST(GtestSmokeTest, DeathTestSeesAbort) { EXPECT_DEATH(std::abort(), ""); }

}  // namespace
