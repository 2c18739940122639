// softmax.x86 and log_softmax.x86 against libtorch: the last axis (short, prime, long rows), a
// non-last axis (the middle, the first), rank 1 to 4, random configs, and argument errors naming
// the key.
#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

const std::vector<OpArgs>& Cases() {
  static const auto* cases = new std::vector<OpArgs>{
      {{"shape", {4, 1000}}},
      {{"shape", {3, 7}}},
      {{"shape", {2, 3, 37}}, {"axis", -1}},
      {{"shape", {17}}},
      {{"shape", {1}}},
      {{"shape", {5, 1}}},
      {{"shape", {2, 129}}, {"axis", 1}},
      {{"shape", {2, 5, 33}}, {"axis", 1}},
      {{"shape", {6, 4, 3}}, {"axis", 0}},
      {{"shape", {2, 3, 4, 5}}, {"axis", -3}},
      {{"shape", {1, 8, 7, 7}}, {"axis", 1}},
      {{"shape", {3, 11, 2}}, {"axis", 1}},
  };
  return *cases;
}

TEST(SoftmaxTest, Fallback) {
  for (const std::string op : {"softmax.x86", "log_softmax.x86"}) {
    for (const OpArgs& args : Cases()) {
      absl::Status s = testing::CheckFallback(testing::GetTemplate(op), args);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
  }
}

TEST(SoftmaxTest, RandomConfigs) {
  for (const std::string op : {"softmax.x86", "log_softmax.x86"}) {
    for (const OpArgs& args :
         {OpArgs{{"shape", {3, 75}}}, OpArgs{{"shape", {3, 5, 40}}, {"axis", 1}}}) {
      absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate(op), args, 20);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
  }
}

TEST(SoftmaxTest, ArgumentErrors) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {OpArgs::object(), "shape"},
      {{{"shape", OpArgs::array()}}, "shape"},
      {{{"shape", {2, 0}}}, "shape"},
      {{{"shape", {2, 3}}, {"axis", 2}}, "axis"},
      {{{"shape", {2, 3}}, {"axis", -3}}, "axis"},
      {{{"shape", {2, 3}}, {"axis", 0.5}}, "axis"},
  };
  for (const std::string op : {"softmax.x86", "log_softmax.x86"}) {
    for (const auto& [args, key] : cases) {
      absl::StatusOr<search::ConfigSpace> space =
          testing::GetTemplate(op).space(args, target::TargetFacts{});
      ASSERT_FALSE(space.ok()) << op << " " << args.dump();
      EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
          << space.status().message();
    }
  }
}

}  // namespace
}  // namespace tessel::ops::x86
