// The networks' operator lists: their arithmetic against the published totals, Table 2's layers
// among them, and every entry accepted by the libtorch references.
#include "workloads/network_ops.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "baselines/torch/reference.h"
#include "workloads/table2.h"

namespace tessel::workloads {
namespace {

int Count(const std::vector<OpShape>& ops, const std::string& op) {
  int n = 0;
  for (const OpShape& s : ops) n += s.op == op ? s.count : 0;
  return n;
}

bool Contains(const std::vector<OpShape>& ops, const std::string& op, const ops::OpArgs& args) {
  for (const OpShape& s : ops) {
    if (s.op == op && s.args == args) return true;
  }
  return false;
}

TEST(NetworkOpsTest, ArithmeticMatchesPublishedTotals) {
  // ResNet-18: 1.81 G multiply-adds, the paper's 3.63 GFLOP.
  absl::StatusOr<double> resnet = TotalMatrixGflop(ResNet18Ops());
  ASSERT_TRUE(resnet.ok()) << resnet.status();
  EXPECT_NEAR(*resnet, 3.6, 0.02 * 3.6);
  EXPECT_NEAR(*resnet, 3.63, 0.01 * 3.63);
  // MobileNet v1: 569 M multiply-adds.
  absl::StatusOr<double> mobilenet = TotalMatrixGflop(MobileNetV1Ops());
  ASSERT_TRUE(mobilenet.ok()) << mobilenet.status();
  EXPECT_NEAR(*mobilenet, 2 * 0.569, 0.02 * 2 * 0.569);
  // DQN: 8x8/4 -> 32x20x20, 4x4/2 -> 64x9x9, 3x3/1 -> 64x7x7, then 3136 x 512 and 512 x 18.
  const double dqn_macs = 20 * 20 * 32 * 4 * 64.0 + 9 * 9 * 64 * 32 * 16.0 + 7 * 7 * 64 * 64 * 9.0 +
                          3136 * 512.0 + 512 * 18.0;
  absl::StatusOr<double> dqn = TotalMatrixGflop(DqnOps());
  ASSERT_TRUE(dqn.ok()) << dqn.status();
  EXPECT_NEAR(*dqn, 2 * dqn_macs * 1e-9, 1e-9);
  std::cout << "GFLOP: resnet18 " << *resnet << ", mobilenet_v1 " << *mobilenet << ", dqn " << *dqn
            << std::endl;
}

TEST(NetworkOpsTest, OperatorCounts) {
  const std::vector<OpShape> resnet = ResNet18Ops();
  EXPECT_EQ(Count(resnet, "conv2d"), 20);  // the stem, 16 in the blocks, 3 projections
  EXPECT_EQ(Count(resnet, "batch_norm"), 20);
  EXPECT_EQ(Count(resnet, "add"), 8);
  EXPECT_EQ(Count(resnet, "relu"), 17);
  EXPECT_EQ(Count(resnet, "dense"), 1);
  const std::vector<OpShape> mobilenet = MobileNetV1Ops();
  EXPECT_EQ(Count(mobilenet, "conv2d"), 27);
  EXPECT_EQ(Count(DqnOps(), "conv2d"), 3);
  EXPECT_EQ(Count(DqnOps(), "dense"), 2);
  EXPECT_EQ(Count(DcganGeneratorOps(), "conv2d_transpose"), 4);
  const std::vector<OpShape> lstm = LstmLmOps();
  ASSERT_EQ(lstm.size(), 3u);  // one lstm_cell shape (input = hidden = 650), dense, log_softmax
  EXPECT_EQ(lstm[0].op, "lstm_cell");
  EXPECT_EQ(lstm[0].count, 70);
  for (const OpShape& s : resnet) EXPECT_GE(s.count, 1);
}

TEST(NetworkOpsTest, Table2LayersAreInTheirNetworks) {
  const std::vector<OpShape> resnet = ResNet18Ops(), mobilenet = MobileNetV1Ops();
  for (const Layer& layer : Table2()) {
    SCOPED_TRACE(layer.name);
    if (layer.name == "C3") {  // the MXNet variant's 1x1 projection, not torchvision's
      EXPECT_FALSE(Contains(resnet, "conv2d", Conv2dArgs(layer)));
    } else if (layer.kind == LayerKind::kConv) {
      EXPECT_TRUE(Contains(resnet, "conv2d", Conv2dArgs(layer)));
    } else {
      EXPECT_TRUE(Contains(mobilenet, "conv2d", Conv2dArgs(layer)));
    }
  }
}

// Logical input shapes of the operators the networks use, per OPERATORS.md.
std::vector<std::vector<int64_t>> InputShapes(const OpShape& s) {
  const ops::OpArgs& a = s.args;
  auto i = [&](const char* key) { return a.at(key).get<int64_t>(); };
  auto list = [&](const char* key) { return a.at(key).get<std::vector<int64_t>>(); };
  if (s.op == "conv2d") {
    return {{i("n"), i("ic"), i("h"), i("w")}, {i("oc"), i("ic") / i("groups"), i("kh"), i("kw")}};
  }
  if (s.op == "conv2d_transpose") {
    return {{i("n"), i("ic"), i("h"), i("w")}, {i("ic"), i("oc"), i("kh"), i("kw")}};
  }
  if (s.op == "batch_norm") {
    return {{i("n"), i("c"), i("h"), i("w")}, {i("c")}, {i("c")}, {i("c")}, {i("c")}};
  }
  if (s.op == "max_pool2d" || s.op == "global_avg_pool2d")
    return {{i("n"), i("c"), i("h"), i("w")}};
  if (s.op == "add") return {list("a_shape"), list("b_shape")};
  if (s.op == "dense") {
    std::vector<std::vector<int64_t>> shapes = {{i("m"), i("k")}, {i("n"), i("k")}};
    if (a.value("bias", false)) shapes.push_back({i("n")});
    return shapes;
  }
  if (s.op == "lstm_cell") {
    const int64_t b = i("batch"), in = i("input"), hid = i("hidden");
    return {{b, in}, {b, hid}, {b, hid}, {4 * hid, in}, {4 * hid, hid}, {4 * hid}, {4 * hid}};
  }
  EXPECT_TRUE(a.contains("shape")) << s.op << " is not known to this test";
  return {list("shape")};
}

TEST(NetworkOpsTest, EveryEntryRunsOnTheTorchReference) {
  uint32_t seed = 1;
  for (const std::string& name : NetworkNames()) {
    absl::StatusOr<std::vector<OpShape>> network = NetworkOps(name);
    ASSERT_TRUE(network.ok()) << network.status();
    for (const OpShape& s : *network) {
      SCOPED_TRACE(name + " " + s.op + " " + s.args.dump());
      std::vector<runtime::NDArray> inputs;
      for (const std::vector<int64_t>& shape : InputShapes(s)) {
        runtime::NDArray x = runtime::NDArray::Empty(shape, {kDLFloat, 32, 1});
        std::mt19937 rng(seed++);
        // Positive everywhere, so batch_norm's variance is valid.
        std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
        for (int64_t e = 0; e < x.NumElements(); ++e) x.data<float>()[e] = uniform(rng);
        inputs.push_back(x);
      }
      absl::StatusOr<std::vector<runtime::NDArray>> out =
          baselines::TorchReference(s.op, s.args, inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_FALSE(out->empty());
    }
  }
}

TEST(NetworkOpsTest, ErrorsNameTheNetworkOrTheKey) {
  absl::StatusOr<std::vector<OpShape>> missing = NetworkOps("vgg16");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("vgg16"), std::string::npos);
  absl::StatusOr<double> bad = MatrixGflop("dense", {{"m", 1}, {"n", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'k'"), std::string::npos) << bad.status();
  absl::StatusOr<double> other = MatrixGflop("relu", {{"shape", {1, 2}}});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, 0.0);
}

}  // namespace
}  // namespace tessel::workloads
