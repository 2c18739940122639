#include "compiler/graph/passes/test_util.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "baselines/torch/graph_reference.h"
#include "compiler/support/uniform_real.h"

namespace tessel::graph::passes::testing {

runtime::NDArray RandomArray(std::vector<int64_t> shape, uint32_t seed, float low, float high) {
  runtime::NDArray a = runtime::NDArray::Empty(std::move(shape), kFloat32);
  std::mt19937 rng(seed);
  UniformReal<float> dist(low, high);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.data<float>()[i] = dist(rng);
  return a;
}

ValueId AddBatchNorm(Builder& b, ValueId x, int64_t c, const std::string& name, uint32_t seed) {
  ValueId gamma = b.Constant(name + ".gamma", RandomArray({c}, seed, 0.5f, 1.5f));
  ValueId beta = b.Constant(name + ".beta", RandomArray({c}, seed + 1));
  ValueId mean = b.Constant(name + ".mean", RandomArray({c}, seed + 2));
  ValueId var = b.Constant(name + ".var", RandomArray({c}, seed + 3, 0.5f, 1.5f));
  return b.Op("batch_norm", {x, gamma, beta, mean, var}, {{"epsilon", 1e-3}}, name);
}

Graph ResNetBlocks(int64_t c, int blocks, bool conv_bias, uint32_t seed) {
  Builder b;
  ValueId x = b.Input("x", {{1, c, 8, 8}});
  const nlohmann::json conv_attrs = {{"pad", {1, 1, 1, 1}}};
  for (int k = 0; k < blocks; ++k) {
    const std::string s = k == 0 ? "" : absl::StrCat("_", k);
    const uint32_t base = seed + 100 * static_cast<uint32_t>(k);
    ValueId y =
        b.Op("conv2d", {x, b.Constant("w1" + s, RandomArray({c, c, 3, 3}, base, -0.3f, 0.3f))},
             conv_attrs, "conv1" + s);
    if (conv_bias) {
      y = b.Op("add", {y, b.Constant("b1" + s, RandomArray({c, 1, 1}, base + 1))}, {}, "bias1" + s);
    }
    y = AddBatchNorm(b, y, c, "bn1" + s, base + 10);
    y = b.Op("relu", {y}, {}, "relu1" + s);
    y = b.Op("conv2d", {y, b.Constant("w2" + s, RandomArray({c, c, 3, 3}, base + 2, -0.3f, 0.3f))},
             conv_attrs, "conv2" + s);
    y = AddBatchNorm(b, y, c, "bn2" + s, base + 20);
    y = b.Op("add", {y, x}, {}, "residual" + s);
    x = b.Op("relu", {y}, {}, "relu2" + s);
  }
  b.Output(x);
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

Graph RandomDag(uint32_t seed, int num_nodes) {
  std::mt19937 rng(seed);
  auto uniform = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  Builder b;
  std::vector<ValueId> pool = {b.Input("x0", {{1, 8}}), b.Input("x1", {{1, 16}})};
  auto width = [&](ValueId v) { return b.type(v).shape[1]; };
  // Mostly recent values, so chains grow deep; sometimes any.
  auto pick = [&]() {
    const int n = static_cast<int>(pool.size());
    return pool[static_cast<size_t>(uniform(4) == 0 ? uniform(n)
                                                    : n - 1 - uniform(std::min(n, 4)))];
  };
  int constants = 0;
  auto constant = [&](std::vector<int64_t> shape) {
    const int k = constants++;
    return b.Constant(absl::StrCat("k", k), RandomArray(std::move(shape), seed + uint32_t(k)));
  };
  for (int i = 0; i < num_nodes; ++i) {
    const ValueId a = pick();
    const int64_t c = width(a);
    ValueId y = kInvalid;
    switch (uniform(9)) {
      case 0:
      case 1: {
        static const char* const kUnary[] = {"relu", "sigmoid", "tanh"};
        y = b.Op(kUnary[uniform(3)], {a});
        break;
      }
      case 2:
      case 3: {
        std::vector<ValueId> same;
        for (ValueId v : pool) {
          if (width(v) == c) same.push_back(v);
        }
        const ValueId other =
            uniform(3) == 0 ? constant({c}) : same[static_cast<size_t>(uniform(int(same.size())))];
        y = b.Op(uniform(2) == 0 ? "add" : "multiply", {a, other});
        break;
      }
      case 4:
        y = c <= 24 ? b.Op("pad", {a}, {{"pad_before", {0, 4}}, {"pad_after", {0, 4}}})
                    : b.Op("reshape", {a}, {{"newshape", {1, c}}});
        break;
      case 5: {
        const ValueId other = pick();
        y = c + width(other) <= 32 ? b.Op("concatenate", {a, other}, {{"axis", 1}})
                                   : b.Op("relu", {a});
        break;
      }
      case 6:
      case 7:
        y = b.Op("dense", {a, constant({uniform(2) == 0 ? 8 : 16, c})});
        break;
      default:
        y = b.Op("softmax", {a});
        break;
    }
    pool.push_back(y);
  }
  // Every value nothing reads is an output, or (one in four) dead; a few others are outputs too.
  absl::StatusOr<Graph> draft = [&] {
    Builder copy = b;
    copy.Output(pool.back());
    return copy.Finish();
  }();
  EXPECT_TRUE(draft.ok()) << draft.status();
  if (!draft.ok()) return Graph{};
  const std::vector<std::vector<int>> consumers = draft->Consumers();
  for (size_t i = 2; i < pool.size(); ++i) {
    const bool unread = consumers[static_cast<size_t>(pool[i])].empty();
    if (i + 1 == pool.size() || (unread && uniform(4) != 0) || (!unread && uniform(10) == 0)) {
      b.Output(pool[i]);
    }
  }
  absl::StatusOr<Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph{};
}

std::vector<std::string> Ops(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

int CountOp(const Graph& g, const std::string& op) {
  int count = 0;
  for (const Node& n : g.nodes) count += n.op == op ? 1 : 0;
  return count;
}

void ExpectSameOutputs(const Graph& before, const Graph& after, uint32_t seed, double tolerance) {
  ASSERT_EQ(before.inputs.size(), after.inputs.size());
  std::vector<runtime::NDArray> inputs;
  for (size_t i = 0; i < before.inputs.size(); ++i) {
    ASSERT_EQ(before.type(before.inputs[i]), after.type(after.inputs[i]));
    inputs.push_back(RandomArray(before.type(before.inputs[i]).shape, seed + uint32_t(i)));
  }
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(before, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = baselines::EvaluateReference(after, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t o = 0; o < want->size(); ++o) {
    const runtime::NDArray &w = (*want)[o], &v = (*got)[o];
    ASSERT_EQ(w.shape(), v.shape()) << "output " << o;
    for (int64_t i = 0; i < w.NumElements(); ++i) {
      const double a = w.data<float>()[i], b = v.data<float>()[i];
      ASSERT_LE(std::fabs(a - b), tolerance + tolerance * std::fabs(a))
          << "output " << o << " element " << i << ": before " << a << ", after " << b;
    }
  }
}

}  // namespace tessel::graph::passes::testing
