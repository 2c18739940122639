// Virtual threads: two vthreads of a matmul give the unscheduled result, and the lowered IR
// interleaves them inside the innermost loop they share (PAPER.md §3, latency hiding).
#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/testing/schedule_check.h"
#include "compiler/testing/workloads.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::schedule {
namespace {

// Every test runs the scheduled program on each backend (the reference on the interpreter).
class VirtualThreadTest : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(VirtualThreadTest, TwoVthreadsInterleaveInsideTheReductionLoop) {
  testing::Matmul w = testing::MakeMatmul(8, 4, 4);
  Schedule s = create_schedule({w.C.op()});
  auto i = s[w.C].split_nparts(w.C.op().as<te::ComputeOpNode>()->axis[0], 2);
  ASSERT_TRUE(i.ok());
  ASSERT_TRUE(s[w.C].bind(i->outer, "vthread").ok());
  absl::Status same = testing::CheckAgainstUnscheduled(s, w.args, 2, 11, GetParam());
  EXPECT_TRUE(same.ok()) << same;

  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, w.args, "matmul");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(ir::ToString(*f),
            R"(func matmul(A: float32[8, 4], B: float32[4, 4], C: float32[8, 4]) {
  for (i.inner, 0, 4) {
    for (j, 0, 4) {
      C[((i.inner * 4) + j)] = 0.0f
      C[(((i.inner * 4) + j) + 16)] = 0.0f
      for (k, 0, 4) {
        C[((i.inner * 4) + j)] = (C[((i.inner * 4) + j)] + (A[((i.inner * 4) + k)] * B[(j + (k * 4))]))
        C[(((i.inner * 4) + j) + 16)] = (C[(((i.inner * 4) + j) + 16)] + (A[(((i.inner * 4) + k) + 16)] * B[(j + (k * 4))]))
      }
    }
  }
}
)");
}

// A shared tile read alike by every vthread is fetched once, into one buffer the size of the
// block's tile, not one copy per vthread (bound.cc relaxes shared stages over vthreads; the
// injection keeps buffers that no vthread writes differently whole).
TEST_P(VirtualThreadTest, SharedTileIsFetchedOnceForAllVthreads) {
  testing::Matmul w = testing::MakeMatmul(8, 4, 4);
  Schedule s = create_schedule({w.C.op()});
  absl::StatusOr<te::Tensor> shared = s.cache_read(w.B, "shared", {w.C.op()});
  ASSERT_TRUE(shared.ok()) << shared.status();
  auto i = s[w.C].split_nparts(w.C.op().as<te::ComputeOpNode>()->axis[0], 2);
  ASSERT_TRUE(i.ok());
  ASSERT_TRUE(s[w.C].bind(i->outer, "vthread").ok());
  ASSERT_TRUE(s[*shared].compute_at(s[w.C], i->inner).ok());
  absl::Status same = testing::CheckAgainstUnscheduled(s, w.args, 2, 11, GetParam());
  EXPECT_TRUE(same.ok()) << same;

  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, w.args, "matmul");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = ir::ToString(*f);
  EXPECT_NE(text.find("allocate B.shared: float32[16] scope \"shared\""), std::string::npos)
      << text;
  const std::string copy = "B.shared[((i * 4) + j)] = B[((i * 4) + j)]";
  const size_t first = text.find(copy);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(copy, first + 1), std::string::npos) << "fetched twice:\n" << text;
}

INSTANTIATE_TEST_SUITE_P(Backends, VirtualThreadTest, ::testing::ValuesIn(testing::AllBackends()),
                         testing::BackendParamName());

}  // namespace
}  // namespace tessel::schedule
