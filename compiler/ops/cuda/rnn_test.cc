// rnn_cell.gpu and lstm_cell.gpu against torch's RNNCell and LSTMCell: run on OpenCL (PoCL here)
// and, built through NVRTC and ptxas only, for CUDA sm_90: the fallback and 20 random configs of
// the LSTM language model's cell (batch 1, 650 x 650) and of small odd cells; argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/testing/op_check.h"

namespace tessel::ops {
namespace {

using ::testing::HasSubstr;

OpArgs Cell(int64_t batch, int64_t input, int64_t hidden) {
  return {{"batch", batch}, {"input", input}, {"hidden", hidden}};
}

testing::CheckOptions On(const char* target) {
  testing::CheckOptions o;
  o.atol = 1e-4;
  o.rtol = 1e-4;
  o.target = tessel::testing::ParseTarget(target);
  return o;
}

const OpArgs kLanguageModel = Cell(1, 650, 650);
const OpArgs kOdd = Cell(3, 10, 37);

TEST(LstmCellGpuTest, LanguageModelOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("lstm_cell.gpu"),
                                               kLanguageModel, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(LstmCellGpuTest, OddCellOnOpenCl) {
  absl::Status s =
      testing::CheckRandomConfigs(testing::GetTemplate("lstm_cell.gpu"), kOdd, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(RnnCellGpuTest, OddCellsOnOpenCl) {
  absl::Status s = testing::CheckRandomConfigs(testing::GetTemplate("rnn_cell.gpu"),
                                               Cell(5, 12, 37), 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(RecurrentCellGpuTest, AwkwardFallbacksOnOpenCl) {
  for (const char* name : {"rnn_cell.gpu", "lstm_cell.gpu"}) {
    for (const OpArgs& args :
         {Cell(1, 1, 1), Cell(1, 256, 512), Cell(2, 100, 31), Cell(8, 33, 17)}) {
      absl::Status s = testing::CheckFallback(testing::GetTemplate(name), args, On("opencl"));
      EXPECT_TRUE(s.ok()) << s;
    }
  }
}

TEST(RecurrentCellGpuTest, CudaSm90BuildsThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const testing::CheckOptions cuda = On("cuda -arch=sm_90");
  for (const OpArgs& args : {kLanguageModel, kOdd}) {
    absl::Status s =
        testing::CheckRandomConfigs(testing::GetTemplate("lstm_cell.gpu"), args, 20, cuda);
    EXPECT_TRUE(s.ok()) << s;
  }
  absl::Status s =
      testing::CheckRandomConfigs(testing::GetTemplate("rnn_cell.gpu"), Cell(5, 12, 37), 20, cuda);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(RecurrentCellGpuTest, ArgumentErrorsNameTheKey) {
  absl::StatusOr<target::TargetFacts> facts =
      target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  ASSERT_TRUE(facts.ok()) << facts.status();
  for (const char* name : {"rnn_cell.gpu", "lstm_cell.gpu"}) {
    absl::StatusOr<search::ConfigSpace> s =
        testing::GetTemplate(name).space({{"batch", 1}, {"input", 4}}, *facts);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr(name));
    EXPECT_THAT(s.status().message(), HasSubstr("'hidden'"));
    s = testing::GetTemplate(name).space(Cell(1, 0, 4), *facts);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr("'input'"));
    s = testing::GetTemplate(name).space(Cell(1, 4, 4), target::TargetFacts());
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr("is not a GPU"));
  }
}

}  // namespace
}  // namespace tessel::ops
