// lrn.x86 against libtorch: odd and even window sizes (ONNX's window: floor((size - 1) / 2)
// channels before, the rest after), windows wider than the channels, widths below, at and above a
// vector; random configs; and argument errors naming the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

const Template& Lrn() {
  absl::StatusOr<const Template*> t = FindTemplate("lrn.x86");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

OpArgs Args(int64_t n, int64_t c, int64_t h, int64_t w, int64_t size) {
  return {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"size", size}};
}

TEST(LrnTest, WindowsAndWidths) {
  std::vector<OpArgs> cases = {Args(1, 16, 5, 7, 5), Args(2, 8, 3, 16, 4), Args(1, 3, 4, 4, 7),
                               Args(1, 5, 2, 33, 1), Args(1, 64, 3, 13, 2)};
  OpArgs custom = Args(1, 12, 4, 9, 3);
  custom["alpha"] = 0.5;
  custom["beta"] = 0.6;
  custom["bias"] = 2.0;
  cases.push_back(custom);
  for (const OpArgs& args : cases) {
    const absl::Status s = testing::CheckFallback(Lrn(), args);
    EXPECT_TRUE(s.ok()) << args.dump() << ": " << s;
  }
}

TEST(LrnTest, RandomConfigs) {
  const absl::Status s = testing::CheckRandomConfigs(Lrn(), Args(2, 10, 3, 21, 5), 4);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(LrnTest, ArgumentErrors) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {{{"n", 1}, {"c", 2}, {"h", 2}, {"w", 2}}, "'size'"},
      {Args(1, 2, 2, 0, 3), "'w'"},
      {Args(1, 2, 2, 2, 0), "'size'"},
  };
  for (const auto& [args, key] : cases) {
    absl::StatusOr<search::ConfigSpace> space = Lrn().space(args, target::TargetFacts{});
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find(key), std::string::npos) << space.status().message();
  }
  OpArgs bad = Args(1, 2, 2, 2, 3);
  bad["bias"] = 0.0;
  absl::StatusOr<search::ConfigSpace> space = Lrn().space(bad, target::TargetFacts{});
  ASSERT_FALSE(space.ok());
  EXPECT_EQ(space.status().message(), "lrn.x86: argument 'bias' must be positive");
}

}  // namespace
}  // namespace tessel::ops::x86
