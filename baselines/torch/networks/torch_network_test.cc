// The libtorch networks against the graphs they mirror: for every network, the torch modules
// (loaded with the graph's weights) and baselines::EvaluateReference (every node through libtorch's
// operator functions) give the same outputs on a seeded input. Errors: unknown names, missing
// or mis-shaped constants, bad inputs, bad thread counts.
#include "baselines/torch/networks/torch_network.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "baselines/torch/graph_reference.h"
#include "workloads/networks/network.h"

namespace tessel::baselines {
namespace {

using ::testing::HasSubstr;
using workloads::networks::BuildNetwork;
using workloads::networks::NetworkInputs;

struct Case {
  std::string name;
  int64_t batch;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name << " batch " << c.batch; }

class TorchNetworkTest : public ::testing::TestWithParam<Case> {};

TEST_P(TorchNetworkTest, MatchesTheGraph) {
  const std::string& name = GetParam().name;
  absl::StatusOr<graph::Graph> g = BuildNetwork(name, {.batch = GetParam().batch, .seed = 3});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs(name, *g, 5);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(*g, *inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<TorchNetwork> net = MakeTorchNetwork(name, *g);
  ASSERT_TRUE(net.ok()) << net.status();
  absl::StatusOr<std::vector<runtime::NDArray>> got = net->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t o = 0; o < got->size(); ++o) {
    const runtime::NDArray& a = (*got)[o];
    const runtime::NDArray& b = (*want)[o];
    ASSERT_EQ(a.shape(), b.shape());
    double max_abs = 0, max_rel = 0, scale = 0;
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      const double x = a.data<float>()[i], y = b.data<float>()[i];
      ASSERT_TRUE(std::isfinite(x)) << name << " element " << i;
      const double err = std::abs(x - y);
      max_abs = std::max(max_abs, err);
      max_rel = std::max(max_rel, err / std::max(std::abs(y), 1e-3));
      scale = std::max(scale, std::abs(y));
      // 1e-4 relative to the element, or to 1 for elements below 1 in magnitude.
      ASSERT_LE(err, 1e-4 * std::max(1.0, std::abs(y)))
          << name << " element " << i << ": torch " << x << ", graph " << y;
    }
    std::cout << name << " batch " << GetParam().batch << ": max |torch - graph| " << max_abs
              << ", max relative " << max_rel << " (largest |output| " << scale << ")" << std::endl;
  }
}

// Batch 2 checks lstm_lm's row order (step-major) and dcgan's statistics taken at batch 1.
INSTANTIATE_TEST_SUITE_P(All, TorchNetworkTest,
                         ::testing::Values(Case{"resnet18", 1}, Case{"mobilenet_v1", 1},
                                           Case{"dqn", 1}, Case{"dcgan", 1}, Case{"lstm_lm", 1},
                                           Case{"dcgan", 2}, Case{"lstm_lm", 2},
                                           Case{"mobilenet_v2", 1}, Case{"bert_base", 1}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat(info.param.name, "_batch", info.param.batch);
                         });

// The comparison above can fail: weights of another seed give other outputs.
TEST(TorchNetworkWeightsTest, OtherWeightsOtherOutputs) {
  absl::StatusOr<graph::Graph> a = BuildNetwork("dqn", {.seed = 1});
  absl::StatusOr<graph::Graph> b = BuildNetwork("dqn", {.seed = 2});
  ASSERT_TRUE(a.ok() && b.ok());
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs("dqn", *a, 1);
  ASSERT_TRUE(inputs.ok());
  absl::StatusOr<std::vector<runtime::NDArray>> want = baselines::EvaluateReference(*a, *inputs);
  absl::StatusOr<TorchNetwork> other = MakeTorchNetwork("dqn", *b);
  ASSERT_TRUE(want.ok() && other.ok());
  absl::StatusOr<std::vector<runtime::NDArray>> got = other->Run(*inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  double max_abs = 0;
  for (int64_t i = 0; i < (*got)[0].NumElements(); ++i) {
    max_abs = std::max<double>(max_abs,
                               std::abs((*got)[0].data<float>()[i] - (*want)[0].data<float>()[i]));
  }
  EXPECT_GT(max_abs, 0.1);
}

TEST(TorchNetworkErrorsTest, NamesWhatIsWrong) {
  absl::StatusOr<graph::Graph> dqn = BuildNetwork("dqn", {.batch = 2});
  ASSERT_TRUE(dqn.ok()) << dqn.status();
  EXPECT_THAT(std::string(MakeTorchNetwork("vgg", *dqn).status().message()),
              HasSubstr("no torch network 'vgg'; the networks are resnet18, mobilenet_v1, dqn, "
                        "dcgan, lstm_lm"));
  // dqn's conv1.weight is [32, 4, 8, 8]; resnet18's is [64, 3, 7, 7].
  EXPECT_THAT(std::string(MakeTorchNetwork("resnet18", *dqn).status().message()),
              HasSubstr("constant 'conv1.weight' is float32[32, 4, 8, 8], the parameter is "
                        "float32[64, 3, 7, 7]"));
  EXPECT_THAT(std::string(MakeTorchNetwork("dcgan", *dqn).status().message()),
              HasSubstr("the graph has no constant 'project.weight'"));

  absl::StatusOr<TorchNetwork> net = MakeTorchNetwork("dqn", *dqn);
  ASSERT_TRUE(net.ok()) << net.status();
  absl::StatusOr<std::vector<runtime::NDArray>> inputs = NetworkInputs("dqn", *dqn, 1);
  ASSERT_TRUE(inputs.ok());
  absl::StatusOr<std::vector<runtime::NDArray>> out = net->Run(*inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (std::vector<int64_t>{2, 18}));
  EXPECT_THAT(std::string(net->Run({}).status().message()), HasSubstr("takes 1 inputs, got 0"));
  EXPECT_THAT(
      std::string(
          net->Run({runtime::NDArray::Empty({1, 4, 84, 84}, graph::kFloat32)}).status().message()),
      HasSubstr("input 'frames' must be float32[2, 4, 84, 84], got float32[1, 4, 84, 84]"));

  EXPECT_THAT(std::string(SetTorchThreads(0).message()), HasSubstr("threads must be >= 1"));
  ASSERT_TRUE(SetTorchThreads(1).ok());
  EXPECT_EQ(TorchThreads(), 1);
}

}  // namespace
}  // namespace tessel::baselines
