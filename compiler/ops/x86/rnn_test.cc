// rnn_cell_fused.x86 and lstm_cell_fused.x86 against torch's RNNCell and LSTMCell: network shapes
// (batch 1), awkward shapes (primes, hidden below a vector), random configs, argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

OpArgs Cell(int64_t batch, int64_t input, int64_t hidden) {
  return {{"batch", batch}, {"input", input}, {"hidden", hidden}};
}

TEST(LstmCellFusedTest, FallbackShapes) {
  // A language model's cell at batch 1 (PTB medium), then awkward shapes.
  for (const OpArgs& args : {Cell(1, 650, 650), Cell(4, 128, 256), Cell(3, 7, 13), Cell(1, 1, 1),
                             Cell(5, 33, 17), Cell(2, 100, 31)}) {
    absl::Status s = testing::CheckFallback(testing::GetTemplate("lstm_cell_fused.x86"), args,
                                            testing::WithTolerance(1e-4));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(LstmCellFusedTest, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("lstm_cell_fused.x86"),
                                               Cell(3, 10, 20), 20, testing::WithTolerance(1e-4));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(RnnCellFusedTest, FallbackShapes) {
  for (const OpArgs& args : {Cell(1, 256, 512), Cell(3, 7, 13), Cell(1, 1, 1), Cell(6, 19, 40)}) {
    absl::Status s = testing::CheckFallback(testing::GetTemplate("rnn_cell_fused.x86"), args,
                                            testing::WithTolerance(1e-4));
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(RnnCellFusedTest, RandomConfigs) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("rnn_cell_fused.x86"),
                                               Cell(5, 12, 37), 20, testing::WithTolerance(1e-4));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(RecurrentCellTest, ArgumentErrorsNameTheKey) {
  target::TargetFacts facts;
  for (const char* name : {"rnn_cell_fused.x86", "lstm_cell_fused.x86"}) {
    absl::StatusOr<search::ConfigSpace> s =
        testing::GetTemplate(name).space({{"batch", 1}, {"input", 4}}, facts);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr("'hidden'"));
    s = testing::GetTemplate(name).space(Cell(1, 0, 4), facts);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr("'input'"));
  }
}

}  // namespace
}  // namespace tessel::ops
