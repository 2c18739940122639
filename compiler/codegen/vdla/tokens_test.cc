// Tokens from hazards: a read after a load waits for it, a load over entries still being read
// waits for the reader, disjoint entries overlap freely, one wait is never made twice, FINISH
// waits for the last store, and a hazard between modules without a queue is an internal error.
#include "compiler/codegen/vdla/tokens.h"

#include <gtest/gtest.h>

namespace tessel::codegen::vdla {
namespace {

using hardware::vdla::Deps;
using hardware::vdla::FinishInsn;
using hardware::vdla::GemmInsn;
using hardware::vdla::Insn;
using hardware::vdla::MemInsn;
using hardware::vdla::MemType;
using hardware::vdla::Opcode;

MemInsn Load(MemType type = MemType::kInput) {
  MemInsn m;
  m.opcode = Opcode::kLoad;
  m.type = type;
  m.y_size = m.x_size = m.x_stride = 1;
  return m;
}

MemInsn Store() {
  MemInsn m = Load(MemType::kOutput);
  m.opcode = Opcode::kStore;
  return m;
}

GemmInsn Gemm() {
  GemmInsn g;
  g.uop_end = g.iter_out = g.iter_in = 1;
  return g;
}

Deps DepsOf(const Insn& insn) {
  return std::visit([](const auto& i) { return i.deps; }, insn);
}

Deps Flags(bool pop_prev, bool pop_next, bool push_prev, bool push_next) {
  return Deps{pop_prev, pop_next, push_prev, push_next};
}

TEST(TokenPlannerTest, ATileLoadedComputedStoredAndLoadedAgain) {
  TokenPlanner t;
  ASSERT_TRUE(t.Add(Load(), {{Sram::kInput, 0, 4, true}}).ok());  // 0
  ASSERT_TRUE(t.Add(Gemm(), {{Sram::kInput, 0, 4, false},         // 1
                             {Sram::kAcc, 0, 2, true}})
                  .ok());
  ASSERT_TRUE(t.Add(Store(), {{Sram::kAcc, 0, 2, false}}).ok());  // 2
  ASSERT_TRUE(t.Add(Load(), {{Sram::kInput, 0, 4, true}}).ok());  // 3: over 0's
  ASSERT_TRUE(t.Add(Gemm(), {{Sram::kInput, 0, 4, false},         // 4
                             {Sram::kAcc, 0, 2, true}})
                  .ok());
  absl::StatusOr<std::vector<Insn>> p = t.Finish();
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 6u);
  EXPECT_EQ(DepsOf((*p)[0]), Flags(false, false, false, true));  // data ready for compute
  // Waits for the load; frees the inputs for the next load and hands the outputs to store.
  EXPECT_EQ(DepsOf((*p)[1]), Flags(true, false, true, true));
  EXPECT_EQ(DepsOf((*p)[2]), Flags(true, false, true, false));  // frees the accumulators
  EXPECT_EQ(DepsOf((*p)[3]), Flags(false, true, false, true));  // waits for gemm 1 to read
  // Waits for load 3 and for the store to have read the accumulators it overwrites.
  EXPECT_EQ(DepsOf((*p)[4]), Flags(true, true, false, false));
  EXPECT_TRUE(std::holds_alternative<FinishInsn>((*p)[5]));
  EXPECT_EQ(DepsOf((*p)[5]), Flags(false, false, false, false));  // store 2 already waited for
}

TEST(TokenPlannerTest, DisjointEntriesDoNotWait) {
  TokenPlanner t;
  ASSERT_TRUE(t.Add(Load(), {{Sram::kInput, 0, 4, true}}).ok());
  ASSERT_TRUE(t.Add(Gemm(), {{Sram::kInput, 0, 4, false}, {Sram::kAcc, 0, 2, true}}).ok());
  // The next tile's load goes to other entries: nothing to wait for.
  ASSERT_TRUE(t.Add(Load(), {{Sram::kInput, 4, 8, true}}).ok());
  ASSERT_TRUE(t.Add(Store(), {{Sram::kAcc, 0, 2, false}}).ok());
  absl::StatusOr<std::vector<Insn>> p = t.Finish();
  ASSERT_TRUE(p.ok());
  // The second load waits for nothing; it pushes only for FINISH, which nothing else read.
  EXPECT_EQ(DepsOf((*p)[2]), Flags(false, false, false, true));
  EXPECT_EQ(DepsOf((*p)[3]), Flags(true, false, true, false));
  EXPECT_EQ(DepsOf((*p)[4]), Flags(true, true, false, false));  // FINISH: the load, the store
}

TEST(TokenPlannerTest, ALoadAndAStoreOnTheSameEntriesIsAnInternalError) {
  TokenPlanner t;
  ASSERT_TRUE(t.Add(Store(), {{Sram::kAcc, 0, 2, false}}).ok());
  absl::Status s = t.Add(Load(MemType::kInput), {{Sram::kAcc, 0, 2, true}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("share no token queue"), std::string::npos) << s;
}

}  // namespace
}  // namespace tessel::codegen::vdla
