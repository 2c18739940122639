// Built with -Winvalid-pch (BUILD): compiling this test source at all checks test_pch.h's PCH.
#include "tools/pch/pch_check.h"

namespace tessel::tools {
namespace {

TEST(PchTest, CommonHeadersAreIncludedFirst) {
  // absl::StatusOr, nlohmann::json and GoogleTest come from the forced include.
  const absl::StatusOr<nlohmann::json> j = nlohmann::json::parse(JsonOfOne());
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["a"].get<int>(), 1);
}

}  // namespace
}  // namespace tessel::tools
