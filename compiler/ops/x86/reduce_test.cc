// The reduction templates against libtorch: every operator of nn/reduce.h over the last axes
// (short, prime and long rows), over leading and middle axes, with and without keepdims, ranks 1
// to 4; random configs; and argument errors naming the key.
#include "compiler/ops/nn/reduce.h"

#include <gtest/gtest.h>

#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"

namespace tessel::ops::x86 {
namespace {

const std::vector<OpArgs>& Cases() {
  static const auto* cases = new std::vector<OpArgs>{
      {{"shape", {4, 1000}}, {"axes", {-1}}},
      {{"shape", {3, 7}}, {"axes", {1}}, {"keepdims", false}},
      {{"shape", {2, 3, 37}}, {"axes", {1, 2}}},
      {{"shape", {17}}, {"axes", {0}}},
      {{"shape", {2, 5, 33}}, {"axes", {1}}, {"keepdims", false}},
      {{"shape", {6, 4, 3}}, {"axes", {0}}},
      {{"shape", {2, 3, 4, 5}}, {"axes", {-3, -2}}},
      {{"shape", {1, 8, 7, 7}}, {"axes", {2, 3}}},
      {{"shape", {2, 128, 64}}, {"axes", {2}}},
  };
  return *cases;
}

TEST(ReduceTest, EveryOperatorFallback) {
  for (const nn::ReduceOp& op : nn::ReduceOps()) {
    for (const OpArgs& args : Cases()) {
      const absl::Status s =
          testing::CheckFallback(testing::GetTemplate(std::string(op.name) + ".x86"), args);
      EXPECT_TRUE(s.ok()) << op.name << " " << args.dump() << ": " << s;
    }
  }
}

TEST(ReduceTest, RandomConfigs) {
  for (const char* op : {"reduce_mean.x86", "reduce_max.x86", "reduce_log_sum_exp.x86"}) {
    for (const OpArgs& args : {OpArgs{{"shape", {3, 75}}, {"axes", {1}}},
                               OpArgs{{"shape", {3, 5, 40}}, {"axes", {1}}}}) {
      const absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate(op), args, 12);
      EXPECT_TRUE(s.ok()) << op << " " << args.dump() << ": " << s;
    }
  }
}

TEST(ReduceTest, ArgumentErrors) {
  const std::vector<std::pair<OpArgs, std::string>> cases = {
      {{{"axes", {0}}}, "'shape'"},
      {{{"shape", {2, 3}}}, "'axes'"},
      {{{"shape", {2, 3}}, {"axes", OpArgs::array()}}, "'axes' must name at least one axis"},
      {{{"shape", {2, 3}}, {"axes", {2}}}, "'axes': 2 is not below the rank 2"},
      {{{"shape", {2, 3}}, {"axes", {-3}}}, "'axes'"},
      {{{"shape", {2, 3}}, {"axes", {1, -1}}}, "names an axis twice"},
      {{{"shape", {2, 3, 4}}, {"axes", {0, 2}}}, "'axes' [0, 2] must be contiguous"},
      {{{"shape", {2, 3}}, {"axes", {0, 1}}, {"keepdims", false}}, "rank-0"},
      {{{"shape", {2, 3}}, {"axes", {1}}, {"keepdims", "no"}}, "'keepdims'"},
  };
  for (const auto& [args, part] : cases) {
    absl::StatusOr<search::ConfigSpace> space =
        testing::GetTemplate("reduce_sum.x86").space(args, target::TargetFacts{});
    ASSERT_FALSE(space.ok()) << args.dump();
    EXPECT_NE(space.status().message().find(part), std::string::npos) << space.status().message();
    EXPECT_EQ(space.status().message().rfind("reduce_sum.x86: ", 0), 0u)
        << space.status().message();
  }
}

}  // namespace
}  // namespace tessel::ops::x86
