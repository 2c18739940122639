#include "workloads/layer_task.h"

#include <gtest/gtest.h>

namespace tessel::workloads {
namespace {

// This machine's generic `llvm` target.
const target::TargetFacts& Llvm() {
  static const target::TargetFacts facts = *target::DescribeTarget(target::Target::Llvm());
  return facts;
}

TEST(LayerTaskTest, StrategyPicksTheTemplateUnlessOneIsNamed) {
  absl::StatusOr<search::Task> c6 = LayerTask("C6", Llvm());
  ASSERT_TRUE(c6.ok()) << c6.status();
  EXPECT_EQ(c6->template_name, "conv2d_winograd.x86");
  EXPECT_EQ(c6->args["ic"], 128);
  absl::StatusOr<search::Task> direct = LayerTask("C6", Llvm(), "conv2d_nchwc.x86");
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_EQ(direct->template_name, "conv2d_nchwc.x86");
  absl::StatusOr<search::Task> d1 = LayerTask("D1", Llvm());
  ASSERT_TRUE(d1.ok()) << d1.status();
  EXPECT_EQ(d1->template_name, "depthwise_conv2d_nchwc.x86");
}

TEST(LayerTaskTest, ErrorsNameTheLayerOrTemplate) {
  EXPECT_NE(LayerTask("C13", Llvm()).status().message().find("C13"), std::string::npos);
  EXPECT_NE(LayerTask("C6", Llvm(), "nope.x86").status().message().find("nope.x86"),
            std::string::npos);
  EXPECT_NE(LayerTask("C6", Llvm(), "dense_pack.x86").status().message().find("dense_pack.x86"),
            std::string::npos);
  // Winograd takes 3x3 stride-1 layers only; C1 is 7x7 stride 2.
  EXPECT_FALSE(LayerTask("C1", Llvm(), "conv2d_winograd.x86").ok());
  // A target whose key has no strategy: the layer's operator and the target are named.
  const target::TargetFacts cuda = *target::DescribeTarget(*target::Target::Parse("cuda"));
  EXPECT_NE(LayerTask("C6", cuda).status().message().find("operator 'conv2d' for target 'cuda'"),
            std::string::npos);
}

}  // namespace
}  // namespace tessel::workloads
