#include "compiler/graph/passes/plan_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "baselines/torch/graph_reference.h"
#include "baselines/torch/reference.h"
#include "compiler/graph/builder.h"
#include "compiler/graph/passes/fold_batch_norm.h"
#include "compiler/graph/passes/test_util.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::passes {
namespace {

using ::testing::HasSubstr;
using testing::RandomArray;

Graph Finish(Builder& b) {
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

FusionPlan Fuse(const Graph& g, bool enabled) {
  absl::StatusOr<FusionPlan> plan = FuseOps(g, {.enabled = enabled});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : FusionPlan{};
}

MemoryPlan Plan(const Graph& g, const FusionPlan& fusion) {
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g, fusion);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  absl::Status valid = CheckMemoryPlan(g, fusion, *plan);
  EXPECT_TRUE(valid.ok()) << valid;
  return *std::move(plan);
}

// Runs g group by group with libtorch, every planned value kept only in its storage: written
// there when made, read back from there. Storages start as garbage, and a group's output storages
// are filled with garbage again before it reads anything (a kernel may write its outputs before it
// has read all its inputs). A plan that lets a value be overwritten before its last read gives
// wrong outputs.
absl::StatusOr<std::vector<runtime::NDArray>> ExecuteWithPlan(
    const Graph& g, const FusionPlan& fusion, const MemoryPlan& plan,
    const std::vector<runtime::NDArray>& inputs) {
  std::vector<std::vector<uint8_t>> storages;
  for (int64_t bytes : plan.storage_bytes) storages.emplace_back(static_cast<size_t>(bytes), 0xAB);
  std::vector<runtime::NDArray> env(g.values.size());  // inputs, constants, values in a group
  for (size_t i = 0; i < inputs.size(); ++i) env[static_cast<size_t>(g.inputs[i])] = inputs[i];
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == ValueKind::kConstant) env[i] = g.values[i].data;
  }
  auto read = [&](ValueId id) -> absl::StatusOr<runtime::NDArray> {
    const int s = plan.storage_of[static_cast<size_t>(id)];
    if (s < 0) return env[static_cast<size_t>(id)];
    runtime::NDArray a = runtime::NDArray::Empty(g.type(id).shape, g.type(id).dtype);
    TESSEL_RETURN_IF_ERROR(a.CopyFromBytes(storages[static_cast<size_t>(s)].data(),
                                           static_cast<size_t>(a.NumBytes())));
    return a;
  };
  for (const FusionGroup& group : fusion.groups) {
    for (ValueId id : group.outputs) {
      const int s = plan.storage_of[static_cast<size_t>(id)];
      if (s >= 0)
        std::fill(storages[static_cast<size_t>(s)].begin(), storages[static_cast<size_t>(s)].end(),
                  0xCD);
    }
    for (int n : group.nodes) {
      const Node& node = g.nodes[static_cast<size_t>(n)];
      std::vector<runtime::NDArray> in;
      for (ValueId id : node.inputs) {
        TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, read(id));
        in.push_back(a);
      }
      TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, OpArgsOf(g, node));
      TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> out,
                              baselines::TorchReference(node.op, args, in));
      for (size_t o = 0; o < out.size(); ++o) {
        const ValueId id = node.outputs[o];
        const int s = plan.storage_of[static_cast<size_t>(id)];
        if (s < 0) {
          env[static_cast<size_t>(id)] = out[o];
          continue;
        }
        TESSEL_RETURN_IF_ERROR(out[o].CopyToBytes(storages[static_cast<size_t>(s)].data(),
                                                  static_cast<size_t>(out[o].NumBytes())));
      }
    }
  }
  std::vector<runtime::NDArray> outputs;
  for (ValueId id : g.outputs) {
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, read(id));
    outputs.push_back(a);
  }
  return outputs;
}

void ExpectPlanExecutes(const Graph& g, const FusionPlan& fusion, const MemoryPlan& plan,
                        uint32_t seed) {
  std::vector<runtime::NDArray> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    inputs.push_back(RandomArray(g.type(g.inputs[i]).shape, seed + uint32_t(i)));
  }
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = ExecuteWithPlan(g, fusion, plan, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t o = 0; o < want->size(); ++o) {
    for (int64_t i = 0; i < (*want)[o].NumElements(); ++i) {
      ASSERT_EQ((*got)[o].data<float>()[i], (*want)[o].data<float>()[i])
          << "output " << o << " at " << i;
    }
  }
}

ValueId Named(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].name == name) return static_cast<ValueId>(i);
  }
  ADD_FAILURE() << "no value " << name;
  return 0;
}

int StorageOf(const Graph& g, const MemoryPlan& plan, const std::string& name) {
  return plan.storage_of[static_cast<size_t>(Named(g, name))];
}

// x -> r1 -> r2 -> r3 -> r4 -> r5 (output), 1 KiB each: the intermediates alternate between two
// storages, the output has its own.
TEST(PlanMemoryTest, ChainReusesTwoBuffers) {
  Builder b;
  ValueId y = b.Input("x", {{1, 256}});
  for (int i = 1; i <= 5; ++i) y = b.Op("relu", {y}, {}, absl::StrCat("r", i));
  b.Output(y);
  const Graph g = Finish(b);
  const FusionPlan unfused = Fuse(g, false);
  const MemoryPlan plan = Plan(g, unfused);
  EXPECT_EQ(plan.storage_of[static_cast<size_t>(Named(g, "x"))], -1);
  std::vector<int> storages;
  for (const char* v : {"r1", "r2", "r3", "r4", "r5"}) storages.push_back(StorageOf(g, plan, v));
  EXPECT_EQ(storages, (std::vector<int>{0, 1, 0, 1, 2}));
  EXPECT_EQ(plan.storage_bytes, (std::vector<int64_t>{1024, 1024, 1024}));
  EXPECT_EQ(plan.peak_bytes, 3 * 1024);
  EXPECT_EQ(plan.naive_bytes, 5 * 1024);
  ExpectPlanExecutes(g, unfused, plan, 1);

  // Fused, the chain is one kernel writing only the output.
  const FusionPlan fused = Fuse(g, true);
  const MemoryPlan one = Plan(g, fused);
  EXPECT_EQ(one.peak_bytes, 1024);
  EXPECT_EQ(one.naive_bytes, 1024);
  EXPECT_EQ(StorageOf(g, one, "r1"), -1);
  ExpectPlanExecutes(g, fused, one, 1);

  absl::StatusOr<MemoryPlan> default_plan = PlanMemory(g);
  ASSERT_TRUE(default_plan.ok()) << default_plan.status();
  EXPECT_EQ(default_plan->storage_of, plan.storage_of);
}

// a is read by b and by d: it lives until d, so c cannot take its storage.
TEST(PlanMemoryTest, ValueLivesUntilItsLastReader) {
  Builder b;
  ValueId x = b.Input("x", {{1, 64}});
  ValueId a = b.Op("relu", {x}, {}, "a");
  ValueId bb = b.Op("sigmoid", {a}, {}, "b");
  ValueId c = b.Op("tanh", {bb}, {}, "c");
  ValueId e = b.Op("relu", {c}, {}, "e");
  b.Output(b.Op("add", {e, a}, {}, "d"));
  const Graph g = Finish(b);
  const FusionPlan unfused = Fuse(g, false);
  const MemoryPlan plan = Plan(g, unfused);
  EXPECT_EQ(StorageOf(g, plan, "a"), 0);
  EXPECT_EQ(StorageOf(g, plan, "b"), 1);
  EXPECT_EQ(StorageOf(g, plan, "c"), 2);
  EXPECT_EQ(StorageOf(g, plan, "e"), 1);
  EXPECT_EQ(StorageOf(g, plan, "d"), 3);
  ExpectPlanExecutes(g, unfused, plan, 2);
}

// Graph outputs, even in the middle of the graph, keep a storage no other value touches; dead
// values get storage for the one step that writes them.
TEST(PlanMemoryTest, OutputsAreNeverOverwritten) {
  Builder b;
  ValueId x = b.Input("x", {{1, 64}});
  ValueId a = b.Op("relu", {x}, {}, "a");
  b.Output(a);
  ValueId y = a;
  for (int i = 0; i < 4; ++i) y = b.Op("sigmoid", {y}, {}, absl::StrCat("s", i));
  b.Op("tanh", {y}, {}, "dead");
  b.Output(b.Op("relu", {y}, {}, "out"));
  const Graph g = Finish(b);
  const FusionPlan unfused = Fuse(g, false);
  const MemoryPlan plan = Plan(g, unfused);
  const int sa = StorageOf(g, plan, "a");
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].name != "a") {
      EXPECT_NE(plan.storage_of[i], sa) << g.values[i].name;
    }
  }
  EXPECT_GE(StorageOf(g, plan, "dead"), 0);
  EXPECT_NE(StorageOf(g, plan, "dead"), StorageOf(g, plan, "s3"));
  EXPECT_NE(StorageOf(g, plan, "out"), StorageOf(g, plan, "dead"));
  ExpectPlanExecutes(g, unfused, plan, 3);
}

// Values that grow: no free storage fits, so the largest free one grows.
TEST(PlanMemoryTest, StoragesGrow) {
  Builder b;
  ValueId x = b.Input("x", {{1, 8}});
  ValueId a = b.Op("pad", {x}, {{"pad_before", {0, 0}}, {"pad_after", {0, 8}}}, "a");   // 64 B
  ValueId p = b.Op("pad", {a}, {{"pad_before", {0, 0}}, {"pad_after", {0, 16}}}, "p");  // 128 B
  ValueId c = b.Op("pad", {p}, {{"pad_before", {0, 0}}, {"pad_after", {0, 32}}}, "c");  // 256 B
  ValueId d = b.Op("relu", {c}, {}, "d");
  b.Output(b.Op("relu", {d}, {}, "e"));
  const Graph g = Finish(b);
  const FusionPlan unfused = Fuse(g, false);
  const MemoryPlan plan = Plan(g, unfused);
  std::vector<int> storages;
  for (const char* v : {"a", "p", "c", "d", "e"}) storages.push_back(StorageOf(g, plan, v));
  EXPECT_EQ(storages, (std::vector<int>{0, 1, 0, 1, 2}));
  EXPECT_EQ(plan.storage_bytes, (std::vector<int64_t>{256, 256, 256}));
  EXPECT_EQ(plan.peak_bytes, 768);
  EXPECT_EQ(plan.naive_bytes, 64 + 128 + 256 + 256 + 256);
  ExpectPlanExecutes(g, unfused, plan, 4);
}

// A small CNN, its numbers worked out by hand (bytes):
//   conv1 2048, relu1 2048, pool 512, conv2 1024, relu2 1024, gap 64, flatten 64, fc 40 (output).
// Unfused: conv1 s0; relu1 s1; pool s0 (best fit); conv2 s1; relu2 s0; gap s1; flatten s0;
//   fc its own s2 (40): peak 2048 + 2048 + 40 = 4136, naive 6824.
// Fused ({conv1 relu1} {pool} {conv2 relu2} {gap} {flatten} {fc}): relu1 s0; pool s1 (512);
//   relu2 s0; gap s1; flatten s0; fc s2: peak 2048 + 512 + 40 = 2600, naive 3752.
TEST(PlanMemoryTest, SmallNetworkByHand) {
  Builder b;
  ValueId y = b.Input("x", {{1, 3, 8, 8}});
  y = b.Op("conv2d", {y, b.Constant("w1", RandomArray({8, 3, 3, 3}, 1))}, {{"pad", {1, 1, 1, 1}}},
           "conv1");
  y = b.Op("relu", {y}, {}, "relu1");
  y = b.Op("max_pool2d", {y}, {{"kh", 2}, {"kw", 2}, {"stride", {2, 2}}}, "pool");
  y = b.Op("conv2d", {y, b.Constant("w2", RandomArray({16, 8, 3, 3}, 2))}, {{"pad", {1, 1, 1, 1}}},
           "conv2");
  y = b.Op("relu", {y}, {}, "relu2");
  y = b.Op("global_avg_pool2d", {y}, {}, "gap");
  y = b.Op("flatten", {y}, {}, "flatten");
  b.Output(b.Op("dense", {y, b.Constant("w3", RandomArray({10, 16}, 3))}, {}, "fc"));
  const Graph g = Finish(b);

  const FusionPlan unfused = Fuse(g, false);
  const MemoryPlan plan = Plan(g, unfused);
  std::vector<int> storages;
  for (const char* v : {"conv1", "relu1", "pool", "conv2", "relu2", "gap", "flatten", "fc"}) {
    storages.push_back(StorageOf(g, plan, v));
  }
  EXPECT_EQ(storages, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 2}));
  EXPECT_EQ(plan.storage_bytes, (std::vector<int64_t>{2048, 2048, 40}));
  EXPECT_EQ(plan.peak_bytes, 4136);
  EXPECT_EQ(plan.naive_bytes, 6824);
  ExpectPlanExecutes(g, unfused, plan, 5);

  const FusionPlan fused = Fuse(g, true);
  EXPECT_EQ(FusionPlanToText(g, fused), "conv1* relu1\npool*\nconv2* relu2\ngap*\nflatten\nfc*\n");
  const MemoryPlan fplan = Plan(g, fused);
  EXPECT_EQ(StorageOf(g, fplan, "conv1"), -1);
  EXPECT_EQ(fplan.storage_bytes, (std::vector<int64_t>{2048, 512, 40}));
  EXPECT_EQ(fplan.peak_bytes, 2600);
  EXPECT_EQ(fplan.naive_bytes, 3752);
  ExpectPlanExecutes(g, fused, fplan, 5);
}

TEST(PlanMemoryTest, ResNetBlocks) {
  absl::StatusOr<Graph> g = FoldBatchNorm(testing::ResNetBlocks(8, 3, true, 1));
  ASSERT_TRUE(g.ok()) << g.status();
  for (bool enabled : {false, true}) {
    SCOPED_TRACE(enabled);
    const FusionPlan fusion = Fuse(*g, enabled);
    const MemoryPlan plan = Plan(*g, fusion);
    EXPECT_LT(plan.peak_bytes, plan.naive_bytes);
    ExpectPlanExecutes(*g, fusion, plan, 6);
  }
  // Fused: each block's relu1 and relu2 (2 KiB each) are the only values stored; relu1 dies in
  // its block, relu2 in the next one (its residual): block 2's relu1 and relu2 and block 1's
  // relu2 are live together, so three storages and the output's.
  const FusionPlan fusion = Fuse(*g, true);
  const MemoryPlan plan = Plan(*g, fusion);
  EXPECT_EQ(plan.naive_bytes, 6 * 2048);
  EXPECT_EQ(plan.storage_bytes.size(), 4u);
  EXPECT_EQ(plan.peak_bytes, 4 * 2048);
}

// Random DAGs, fused and not: every plan passes the check and runs right.
TEST(PlanMemoryTest, RandomDagsGiveValidPlans) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    SCOPED_TRACE(seed);
    const Graph g = testing::RandomDag(seed, 40);
    for (bool enabled : {false, true}) {
      const FusionPlan fusion = Fuse(g, enabled);
      const MemoryPlan plan = Plan(g, fusion);
      EXPECT_LE(plan.peak_bytes, plan.naive_bytes);
      if (seed < 60) ExpectPlanExecutes(g, fusion, plan, seed);
    }
  }
}

TEST(PlanMemoryTest, CheckMemoryPlanCatchesBrokenPlans) {
  Builder b;
  ValueId y = b.Input("x", {{1, 256}});
  for (int i = 1; i <= 5; ++i) y = b.Op(i == 3 ? "sigmoid" : "relu", {y}, {}, absl::StrCat("r", i));
  b.Output(y);
  const Graph g = Finish(b);
  const FusionPlan fusion = Fuse(g, false);
  const MemoryPlan good = Plan(g, fusion);
  const auto r = [&](const char* name) { return static_cast<size_t>(Named(g, name)); };
  struct Case {
    std::function<void(MemoryPlan&)> breaks;
    std::string message;
  };
  std::vector<Case> cases = {
      {[&](MemoryPlan& p) { p.storage_of[r("r2")] = p.storage_of[r("r1")]; },
       "'r1' and 'r2' share storage 0 while both are live"},
      {[&](MemoryPlan& p) { p.storage_of[r("r5")] = p.storage_of[r("r1")]; },
       "'r1' and 'r5' share storage 0"},
      {[&](MemoryPlan& p) { p.storage_bytes[0] = 1000; }, "'r1' does not fit its storage 0"},
      {[&](MemoryPlan& p) { p.storage_of[r("x")] = 0; }, "'x' needs no storage but has one"},
      {[&](MemoryPlan& p) { p.peak_bytes += 1; }, "the plan reports 3073 peak"},
      {[&](MemoryPlan& p) { p.value_bytes[r("r4")] = 4; },
       "'r4' takes 1024 bytes, the plan says 4"},
  };
  for (const Case& c : cases) {
    MemoryPlan p = good;
    c.breaks(p);
    EXPECT_THAT(std::string(CheckMemoryPlan(g, fusion, p).message()), HasSubstr(c.message));
  }
}

TEST(PlanMemoryTest, FusionPlanOfAnotherGraphIsAnError) {
  const Graph small = testing::ResNetBlocks(4, 1, false, 1);
  const Graph large = testing::ResNetBlocks(4, 2, false, 1);
  absl::StatusOr<MemoryPlan> plan = PlanMemory(small, Fuse(large, true));
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("the fusion plan places 14 nodes, the graph has 7"));
}

}  // namespace
}  // namespace tessel::graph::passes
