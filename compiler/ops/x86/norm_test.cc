// batch_norm.x86 against libtorch (inference batch norm) on awkward shapes and random configs,
// and its argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

const Template& BatchNorm() {
  absl::StatusOr<const Template*> t = FindTemplate("batch_norm.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

TEST(BatchNormTest, Fallback) {
  const std::vector<OpArgs> cases = {
      {{"n", 1}, {"c", 64}, {"h", 56}, {"w", 56}},
      {{"n", 2}, {"c", 3}, {"h", 7}, {"w", 11}, {"epsilon", 1e-3}},
      {{"n", 1}, {"c", 13}, {"h", 1}, {"w", 1}},
      {{"n", 3}, {"c", 1}, {"h", 17}, {"w", 5}, {"epsilon", 0}},
  };
  for (const OpArgs& args : cases) {
    absl::Status s = testing::CheckFallback(BatchNorm(), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(BatchNormTest, RandomConfigs) {
  absl::Status s =
      testing::CheckRandomConfigs(BatchNorm(), {{"n", 2}, {"c", 5}, {"h", 9}, {"w", 12}}, 20);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(BatchNormTest, ArgumentErrors) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {{{"c", 3}, {"h", 4}, {"w", 4}}, "n"},
      {{{"n", 1}, {"c", 0}, {"h", 4}, {"w", 4}}, "c"},
      {{{"n", 1}, {"c", 3}, {"w", 4}}, "h"},
      {{{"n", 1}, {"c", 3}, {"h", 4}, {"w", "4"}}, "w"},
      {{{"n", 1}, {"c", 3}, {"h", 4}, {"w", 4}, {"epsilon", -1}}, "epsilon"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space = BatchNorm().space(args, target::TargetFacts{});
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::x86
