// The shared injective schedule: the fallback tiling for typical and awkward shapes, the filter
// on ragged fused tiles, and the loop nests it gives (printed IR): parallel rows, vector bodies,
// a guarded tail only on a single inner axis.
#include "compiler/ops/x86/injective_schedule.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ops/nn/activation.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::x86 {
namespace {

target::TargetFacts Avx512TwoCores() {
  target::TargetFacts f;
  f.vector_bits = 512;
  f.cores = 2;
  return f;
}

TEST(InjectiveScheduleTest, FallbackTiling) {
  const target::TargetFacts facts = Avx512TwoCores();
  // A large contiguous tensor: everything fused, two vectors per tile, parallel.
  InjectiveTiling t = DefaultInjectiveTiling({1, 64, 56, 56}, 4, facts);
  EXPECT_EQ(t.inner_axes, 3);
  EXPECT_EQ(t.vec, 16);
  EXPECT_EQ(t.unroll, 2);
  EXPECT_TRUE(t.parallel);
  // Only the last axis may be fused: 56 is 7 half vectors, cheaper than 3 vectors and a
  // scalar tail of 8.
  t = DefaultInjectiveTiling({1, 64, 56, 56}, 1, facts);
  EXPECT_EQ(t.inner_axes, 1);
  EXPECT_EQ(t.vec, 8);
  // Short rows: the whole row as one vector, no tail.
  t = DefaultInjectiveTiling({2, 3, 17}, 3, facts);
  EXPECT_EQ(t.inner_axes, 1);
  EXPECT_EQ(t.vec, 32);
  EXPECT_FALSE(t.parallel);
  // One row of 1000: a full vector width with a scalar tail beats half vectors.
  t = DefaultInjectiveTiling({1, 1000}, 2, facts);
  EXPECT_EQ(t.vec, 16);
}

TEST(InjectiveScheduleTest, FilterRejectsRaggedFusedTiles) {
  search::ConfigSpace space;
  DefineInjectiveKnobs(space, {2, 3, 17}, 3, Avx512TwoCores());
  absl::StatusOr<search::Config> ragged = space.FromJson(
      {{"knobs", {{"inner_axes", 2}, {"vec", 16}, {"unroll", 1}, {"parallel", 0}}}});
  ASSERT_TRUE(ragged.ok()) << ragged.status();
  EXPECT_FALSE(space.Validate(*ragged).ok());
  // Two fused axes of 51 elements: longer than a vector of 32 and no multiple of it.
  absl::StatusOr<search::Config> whole = space.FromJson(
      {{"knobs", {{"inner_axes", 2}, {"vec", 32}, {"unroll", 1}, {"parallel", 0}}}});
  ASSERT_TRUE(whole.ok());
  EXPECT_FALSE(space.Validate(*whole).ok());
  absl::StatusOr<search::Config> single = space.FromJson(
      {{"knobs", {{"inner_axes", 1}, {"vec", 8}, {"unroll", 4}, {"parallel", 1}}}});
  ASSERT_TRUE(single.ok());
  EXPECT_TRUE(space.Validate(*single).ok());
}

TEST(InjectiveScheduleTest, CollapseBroadcast) {
  // Per-channel bias: (n), (c), (h, w) merged.
  CollapsedViews v = CollapseBroadcast({2, 512, 7, 7}, {{2, 512, 7, 7}, {512, 1, 1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{2, 512, 49}));
  EXPECT_EQ(v.operands[0], (std::vector<int64_t>{2, 512, 49}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{1, 512, 1}));
  // Same shapes: one axis. Extent-1 axes disappear.
  v = CollapseBroadcast({1, 3, 1, 5}, {{1, 3, 1, 5}, {3, 1, 5}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{15}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{15}));
  // Both sides broadcast.
  v = CollapseBroadcast({3, 4, 5}, {{3, 1, 5}, {1, 4, 1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(v.operands[0], (std::vector<int64_t>{3, 1, 5}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{1, 4, 1}));
  // A scalar-like operand and a single element.
  v = CollapseBroadcast({4, 7, 9}, {{4, 7, 9}, {1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{252}));
  EXPECT_EQ(v.operands[1], (std::vector<int64_t>{1}));
  v = CollapseBroadcast({1, 1}, {{1, 1}, {1, 1}});
  EXPECT_EQ(v.out, (std::vector<int64_t>{1}));
}

std::string LoweredRelu(const std::vector<int64_t>& shape, const InjectiveTiling& t) {
  te::Tensor x = te::placeholder(nn::ShapeExprs(shape), ir::kFloat32, "x");
  te::Tensor y = nn::Relu(x);
  schedule::Schedule s = schedule::create_schedule({y.op()});
  absl::Status st = ScheduleInjective(s, y, t);
  EXPECT_TRUE(st.ok()) << st;
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {x, y}, "relu");
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? ir::ToString(*f) : "";
}

TEST(InjectiveScheduleTest, LoopNests) {
  // Fused rows and tiles in parallel, two unrolled vectors of 16 per iteration, no guard.
  std::string ir = LoweredRelu({1, 64, 56, 56}, {.inner_axes = 3, .vec = 16, .unroll = 2});
  EXPECT_NE(ir.find(") parallel {"), std::string::npos) << ir;
  EXPECT_NE(ir.find("ramp(((i.j.l.fused.m.fused.outer.fused * 32) + 16), 1, 16)"),
            std::string::npos)
      << ir;
  EXPECT_EQ(ir.find("if ("), std::string::npos) << ir;

  // A ragged last axis: the bulk is vector code; the tail, split off by partitioning, is the
  // only guarded statement.
  ir = LoweredRelu({6, 37}, {.inner_axes = 1, .vec = 16, .unroll = 1, .parallel = false});
  EXPECT_NE(ir.find("ramp(((i * 37) + (j.outer * 16)), 1, 16)"), std::string::npos) << ir;
  EXPECT_NE(ir.find("if ((j.inner < 5))"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("parallel"), std::string::npos) << ir;

  // A row shorter than the vector: one vector of the row's length.
  ir = LoweredRelu({4, 7}, {.inner_axes = 1, .vec = 16, .unroll = 1, .parallel = true});
  EXPECT_NE(ir.find("ramp((i * 7), 1, 7)"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessel::ops::x86
