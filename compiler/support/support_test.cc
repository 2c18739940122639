#include <gtest/gtest.h>

#include "compiler/support/check.h"
#include "compiler/support/object.h"

namespace tessel {
namespace {

struct Counted : Object {
  explicit Counted(int* alive) : alive(alive) { ++*alive; }
  ~Counted() override { --*alive; }
  int* alive;
};

TEST(RefTest, LastReferenceDestroys) {
  int alive = 0;
  {
    Ref<Counted> a = MakeRef<Counted>(&alive);
    EXPECT_EQ(alive, 1);
    Ref<Counted> b = a;
    Ref<const Object> up = b;
    EXPECT_TRUE(a.same_as(b));
    a = Ref<Counted>();
    b = nullptr;
    EXPECT_EQ(alive, 1);
    EXPECT_TRUE(up);
  }
  EXPECT_EQ(alive, 0);
}

TEST(CheckDeathTest, FailedCheckReportsFileLineConditionAndMessage) {
  int extent = -3;
  EXPECT_DEATH(TESSEL_CHECK(extent > 0) << "loop i has extent " << extent,
               "support_test.cc:[0-9]+: internal error: check failed: extent > 0: loop i has "
               "extent -3");
}

TEST(CheckTest, PassingCheckDoesNotEvaluateItsMessage) {
  int evaluated = 0;
  auto message = [&] { return ++evaluated; };
  TESSEL_CHECK(1 + 1 == 2) << message();
  EXPECT_EQ(evaluated, 0);
}

}  // namespace
}  // namespace tessel
