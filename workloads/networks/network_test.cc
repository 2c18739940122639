// The networks as graphs: shapes, node counts, the matrix operators against network_ops.h's
// lists, and activations through the whole network (every node's output evaluated by libtorch
// on a seeded input: finite, O(1), not constant). Errors: unknown names, bad batch.
#include "workloads/networks/network.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "baselines/torch/graph_reference.h"
#include "workloads/network_ops.h"
#include "workloads/networks/layers.h"

namespace tessel::workloads::networks {
namespace {

using ::testing::HasSubstr;

struct Expected {
  std::string name;
  std::vector<int64_t> input, output;  // at batch 1
  size_t nodes;
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.name; }

class NetworkTest : public ::testing::TestWithParam<Expected> {};

struct Stats {
  double mean = 0, rms = 0, stddev = 0;
  bool finite = true;
};

Stats StatsOf(const runtime::NDArray& a) {
  Stats s;
  const float* p = a.data<float>();
  const int64_t n = a.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    s.finite = s.finite && std::isfinite(p[i]);
    s.mean += p[i];
    s.rms += static_cast<double>(p[i]) * p[i];
  }
  s.mean /= static_cast<double>(n);
  s.rms = std::sqrt(s.rms / static_cast<double>(n));
  s.stddev = std::sqrt(std::max(0.0, s.rms * s.rms - s.mean * s.mean));
  return s;
}

TEST_P(NetworkTest, ShapesOperatorsAndActivations) {
  const Expected& want = GetParam();
  absl::StatusOr<graph::Graph> g = BuildNetwork(want.name, {});
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->inputs.size(), 1u);
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->type(g->inputs[0]).shape, want.input);
  EXPECT_EQ(g->type(g->outputs[0]).shape, want.output);
  EXPECT_EQ(g->nodes.size(), want.nodes);
  std::cout << want.name << ": " << g->nodes.size() << " nodes, " << g->values.size() << " values, "
            << g->ConstantBytes() / 1e6 << " MB of constants" << std::endl;

  // Every operator network_ops.h lists, with its arguments and count, is in the graph.
  std::map<std::string, int> counts;
  for (const graph::Node& node : g->nodes) {
    absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(*g, node);
    ASSERT_TRUE(args.ok()) << args.status();
    ++counts[node.op + args->dump()];
  }
  absl::StatusOr<std::vector<OpShape>> listed = NetworkOps(want.name);
  ASSERT_TRUE(listed.ok()) << listed.status();
  for (const OpShape& s : *listed) {
    EXPECT_EQ(counts[s.op + s.args.dump()], s.count) << want.name << ": " << s.op << s.args.dump();
  }

  // Every node output, evaluated on a seeded input.
  graph::Graph all = *g;
  all.outputs.clear();
  for (const graph::Node& node : all.nodes) {
    for (graph::ValueId id : node.outputs) all.outputs.push_back(id);
  }
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs(want.name, *g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<runtime::NDArray>> values = baselines::EvaluateReference(all, *inputs);
  ASSERT_TRUE(values.ok()) << values.status();
  // O(1): each value's spread within [0.05, 5] and its mean within 15 (log-probabilities over
  // 10000 words have a mean near -9.2).
  double lo = 1e30, hi = 0;
  for (size_t i = 0; i < values->size(); ++i) {
    const std::string& what = all.value(all.outputs[i]).name;
    const Stats s = StatsOf((*values)[i]);
    ASSERT_TRUE(s.finite) << what;
    EXPECT_GT(s.stddev, 0.05) << what;
    EXPECT_LT(s.stddev, 5.0) << what;
    EXPECT_LT(std::abs(s.mean), 15.0) << what;
    lo = std::min(lo, s.stddev);
    hi = std::max(hi, s.stddev);
  }
  const Stats out = StatsOf(values->back());
  std::cout << want.name << ": node output std in [" << lo << ", " << hi << "]; output mean "
            << out.mean << ", std " << out.stddev << std::endl;
}

INSTANTIATE_TEST_SUITE_P(
    All, NetworkTest,
    ::testing::Values(Expected{"resnet18", {1, 3, 224, 224}, {1, 1000}, 69},
                      Expected{"mobilenet_v1", {1, 3, 224, 224}, {1, 1000}, 84},
                      Expected{"dqn", {1, 4, 84, 84}, {1, 18}, 13},
                      Expected{"dcgan", {1, 100}, {1, 3, 64, 64}, 15},
                      Expected{"lstm_lm", {35, 1}, {35, 10000}, 110}),
    [](const ::testing::TestParamInfo<Expected>& info) { return info.param.name; });

TEST(NetworksTest, NamesAreNetworkOpsNames) {
  EXPECT_EQ(NetworkNames(), workloads::NetworkNames());
  EXPECT_EQ(Networks().size(), NetworkNames().size());
}

TEST(NetworksTest, Batch) {
  absl::StatusOr<graph::Graph> dqn = BuildNetwork("dqn", {.batch = 3});
  ASSERT_TRUE(dqn.ok()) << dqn.status();
  EXPECT_EQ(dqn->type(dqn->outputs[0]).shape, (std::vector<int64_t>{3, 18}));
  absl::StatusOr<graph::Graph> dcgan = BuildNetwork("dcgan", {.batch = 2});
  ASSERT_TRUE(dcgan.ok()) << dcgan.status();
  EXPECT_EQ(dcgan->type(dcgan->outputs[0]).shape, (std::vector<int64_t>{2, 3, 64, 64}));
}

TEST(NetworksTest, WeightsDependOnSeedAndName) {
  auto first = [](const runtime::NDArray& a) { return a.data<float>()[0]; };
  EXPECT_EQ(first(UniformArray({4}, -1, 1, 7, "a")), first(UniformArray({4}, -1, 1, 7, "a")));
  EXPECT_NE(first(UniformArray({4}, -1, 1, 7, "a")), first(UniformArray({4}, -1, 1, 8, "a")));
  EXPECT_NE(first(UniformArray({4}, -1, 1, 7, "a")), first(UniformArray({4}, -1, 1, 7, "b")));
}

TEST(NetworksTest, Errors) {
  absl::StatusOr<graph::Graph> g = BuildNetwork("resnet50", {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(g.status().message()),
              HasSubstr("unknown network 'resnet50'; the networks are resnet18, mobilenet_v1, "
                        "dqn, dcgan, lstm_lm"));
  EXPECT_THAT(std::string(BuildNetwork("dqn", {.batch = 0}).status().message()),
              HasSubstr("batch must be >= 1"));
  EXPECT_THAT(std::string(NetworkInputs("vgg", graph::Graph{}, 0).status().message()),
              HasSubstr("unknown network 'vgg'"));
}

}  // namespace
}  // namespace tessel::workloads::networks
