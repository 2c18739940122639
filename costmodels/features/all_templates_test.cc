// Feature extraction succeeds on every registered template's programs: for small arguments of each
// template (valid ones, from the templates' own tests), the fallback and a few random configs give
// finite itervar, curve and tree features of the fixed widths. A template registered without an
// entry in the table below fails the test, so a new template must be added here.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/conv_args.h"
#include "costmodels/features/curve.h"
#include "costmodels/features/feature_extractor.h"
#include "costmodels/features/itervar.h"
#include "workloads/table2.h"

namespace tessel::costmodels {
namespace {

using ops::testing::SquareConvArgs;

ops::OpArgs ConvTranspose() {
  return {{"n", 1},
          {"ic", 16},
          {"h", 5},
          {"w", 5},
          {"oc", 8},
          {"kh", 4},
          {"kw", 4},
          {"stride", {2, 2}},
          {"pad", {1, 1, 1, 1}},
          {"output_padding", {0, 0}}};
}

ops::OpArgs BitserialConv() {
  return {{"n", 1},
          {"ic", 32},
          {"h", 8},
          {"w", 8},
          {"oc", 32},
          {"kh", 3},
          {"kw", 3},
          {"stride", {1, 1}},
          {"pad", {1, 1, 1, 1}},
          {"activation_bits", 2},
          {"weight_bits", 1},
          {"unipolar", true}};
}

// Small, valid arguments per template.
std::map<std::string, ops::OpArgs>* MakeArgsTable() {
  auto* table = new std::map<std::string, ops::OpArgs>{
      {"conv2d_nchwc.x86", SquareConvArgs(16, 10, 32, 3, 1, 1)},
      {"conv2d_nchw.x86", SquareConvArgs(12, 9, 8, 3, 2, 1, 4)},
      {"conv2d_multilevel.x86", SquareConvArgs(16, 10, 32, 3, 1, 1)},
      {"dense_multilevel.x86", {{"m", 8}, {"n", 48}, {"k", 40}, {"bias", true}}},
      {"batch_matmul_multilevel.x86", {{"batch", 3}, {"m", 12}, {"n", 24}, {"k", 13}}},
      {"conv2d_winograd.x86", SquareConvArgs(16, 8, 16, 3, 1, 1)},
      {"depthwise_conv2d_nchwc.x86", SquareConvArgs(32, 12, 32, 3, 1, 1, 32)},
      {"conv2d_transpose_nchwc.x86", ConvTranspose()},
      {"bitserial_conv2d_nhwc.x86", BitserialConv()},
      {"bitserial_dense_pack.x86",
       {{"m", 4},
        {"n", 32},
        {"k", 64},
        {"activation_bits", 2},
        {"weight_bits", 1},
        {"unipolar", true}}},
      {"dense_pack.x86", {{"m", 8}, {"n", 48}, {"k", 40}, {"bias", true}}},
      {"matmul_tiled.x86", {{"m", 19}, {"n", 48}, {"k", 23}}},
      {"batch_matmul_tiled.x86", {{"batch", 3}, {"m", 11}, {"n", 24}, {"k", 13}}},
      {"rnn_cell_fused.x86", {{"batch", 2}, {"input", 24}, {"hidden", 16}}},
      {"lstm_cell_fused.x86", {{"batch", 2}, {"input", 24}, {"hidden", 16}}},
      {"relu.x86", {{"shape", {3, 7, 29}}}},
      {"sigmoid.x86", {{"shape", {3, 7, 29}}}},
      {"tanh.x86", {{"shape", {3, 7, 29}}}},
      {"leaky_relu.x86", {{"shape", {4, 33}}}},
      {"clip.x86", {{"shape", {3, 7, 29}}, {"min", -0.3}, {"max", 0.4}}},
      {"add.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}},
      {"subtract.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}},
      {"multiply.x86", {{"a_shape", {3, 1, 37}}, {"b_shape", {4, 1}}}},
      {"divide.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}},
      {"maximum.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}},
      {"minimum.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {9}}}},
      {"batch_norm.x86", {{"n", 2}, {"c", 5}, {"h", 9}, {"w", 12}}},
      {"max_pool2d.x86",
       {{"n", 1},
        {"c", 5},
        {"h", 11},
        {"w", 9},
        {"kh", 3},
        {"kw", 2},
        {"pad", {0, 1, 2, 0}},
        {"stride", {2, 1}}}},
      {"avg_pool2d.x86",
       {{"n", 2},
        {"c", 3},
        {"h", 10},
        {"w", 12},
        {"kh", 4},
        {"kw", 3},
        {"pad", {1, 0, 0, 2}},
        {"stride", {3, 2}},
        {"count_include_pad", true}}},
      {"global_avg_pool2d.x86", {{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}}},
      {"global_max_pool2d.x86", {{"n", 2}, {"c", 7}, {"h", 9}, {"w", 11}}},
      {"softmax.x86", {{"shape", {3, 5, 40}}, {"axis", 1}}},
      {"log_softmax.x86", {{"shape", {3, 75}}}},
      {"layer_norm.x86", {{"shape", {3, 5, 40}}, {"axis", 1}}},
      {"concatenate.x86", {{"shapes", {{2, 3, 40}, {2, 5, 40}}}, {"axis", 1}}},
      {"reshape.x86", {{"shape", {4, 6, 10}}, {"newshape", {3, 8, 10}}}},
      {"flatten.x86", {{"shape", {3, 7, 5}}, {"axis", 2}}},
      {"transpose.x86", {{"shape", {6, 5, 33}}, {"axes", {1, 0, 2}}}},
      {"pad.x86", {{"shape", {2, 5, 19}}, {"pad_before", {0, 1, 3}}, {"pad_after", {1, 0, 2}}}},
      {"layout_transform.x86", {{"shape", {1, 32, 5, 7}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}},
      {"take.x86", {{"data_shape", {50, 64}}, {"indices_shape", {12}}}},
      {"cast.x86", {{"shape", {3, 7, 29}}, {"from", "int64"}, {"to", "float32"}}},
      {"quantize.x86", {{"shape", {3, 7, 29}}, {"scale", 0.02}}},
      {"dequantize.x86", {{"shape", {3, 7, 29}}, {"scale", 0.02}}},
      {"conv2d_int8.x86",
       {{"n", 1},
        {"ic", 16},
        {"h", 10},
        {"w", 10},
        {"oc", 32},
        {"kh", 3},
        {"kw", 3},
        {"stride", {1, 1}},
        {"pad", {1, 1, 1, 1}},
        {"shift", 9},
        {"relu", true}}},
      {"dense_int8.x86", {{"m", 3}, {"n", 18}, {"k", 50}, {"shift", 8}, {"relu", true}}},
      {"power.x86", {{"a_shape", {2, 16, 5, 9}}, {"b_shape", {16, 1, 1}}}},
      {"lrn.x86", {{"n", 1}, {"c", 8}, {"h", 3}, {"w", 11}, {"size", 5}}},
  };
  // The tables' other operators: one input of the shape the activations above take.
  for (const ops::nn::UnaryOp& op : ops::nn::UnaryOps()) {
    table->try_emplace(std::string(op.name) + ".x86", ops::OpArgs{{"shape", {3, 7, 29}}});
  }
  for (const ops::nn::ReduceOp& op : ops::nn::ReduceOps()) {
    table->try_emplace(std::string(op.name) + ".x86",
                       ops::OpArgs{{"shape", {3, 5, 40}}, {"axes", {1}}});
  }
  return table;
}

const std::map<std::string, ops::OpArgs>& ArgsTable() {
  static const auto* const table = MakeArgsTable();
  return *table;
}

target::TargetFacts Facts() {
  target::TargetFacts f;
  f.target = *target::Target::Parse("llvm -mcpu=skylake-avx512");
  f.vector_bits = 512;
  f.cores = 2;
  return f;
}

TEST(AllTemplatesTest, EveryTemplateHasArguments) {
  std::vector<std::string> missing;
  for (const ops::Template* t : ops::AllTemplates()) {
    if (!ArgsTable().count(t->name)) missing.push_back(t->name);
  }
  EXPECT_TRUE(missing.empty()) << "registered templates without arguments in the table: "
                               << ::testing::PrintToString(missing);
  for (const auto& [name, args] : ArgsTable()) {
    EXPECT_TRUE(ops::FindTemplate(name).ok()) << name << " is in the table but not registered";
  }
}

void ExpectFinite(const std::vector<float>& v, const std::string& what) {
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_TRUE(std::isfinite(v[i])) << what << " value " << i << " is " << v[i];
  }
}

class FeaturesOfTemplate : public ::testing::TestWithParam<std::string> {};

TEST_P(FeaturesOfTemplate, FallbackAndRandomConfigs) {
  const std::string& name = GetParam();
  const search::Task task{name, ArgsTable().at(name), Facts().target};
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(name);
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, Facts());
  ASSERT_TRUE(space.ok()) << space.status();
  std::vector<search::Config> configs = {(*t)->fallback(*space, task.args, Facts())};
  std::mt19937_64 rng(11);
  for (const search::Config& c : space->SampleUnique(8, rng)) configs.push_back(c);

  std::unique_ptr<FeatureExtractor> itervar =
      MakeProgramFeatureExtractor(FeatureKind::kItervar, Facts(), 2);
  std::unique_ptr<FeatureExtractor> curve =
      MakeProgramFeatureExtractor(FeatureKind::kCurve, Facts(), 2);
  absl::StatusOr<std::vector<std::vector<float>>> flat = itervar->FlatBatch(task, configs);
  ASSERT_TRUE(flat.ok()) << flat.status();
  absl::StatusOr<std::vector<std::vector<float>>> curves = curve->FlatBatch(task, configs);
  ASSERT_TRUE(curves.ok()) << curves.status();
  absl::StatusOr<std::vector<LoopTree>> trees = itervar->TreeBatch(task, configs);
  ASSERT_TRUE(trees.ok()) << trees.status();
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string what = name + " " + configs[i].ToString();
    const std::vector<float>& f = (*flat)[i];
    ASSERT_FALSE(f.empty()) << what << ": no loops";
    EXPECT_EQ(f.size() % kNodeWidth, 0u) << what;
    ExpectFinite(f, what + " itervar");
    EXPECT_EQ((*curves)[i].size(), static_cast<size_t>(kCurveWidth)) << what;
    ExpectFinite((*curves)[i], what + " curve");
    const LoopTree& tree = (*trees)[i];
    EXPECT_EQ(tree.nodes.size(), f.size() / kNodeWidth + 1) << what;
    for (const LoopTree::Node& node : tree.nodes) {
      ASSERT_EQ(node.features.size(), static_cast<size_t>(kNodeWidth)) << what;
    }
  }
  // The features tell configs apart (knobs that leave the program as it is, such as a vector
  // width beyond a short axis, may give equal ones).
  if (configs.size() > 2) {
    EXPECT_GE(std::set<std::vector<float>>(flat->begin(), flat->end()).size(), 2u) << name;
  }
}

// The conv2d layers of Table 2 at their real sizes.
TEST(AllTemplatesTest, Table2ConvLayers) {
  std::unique_ptr<FeatureExtractor> itervar =
      MakeProgramFeatureExtractor(FeatureKind::kItervar, Facts(), 2);
  for (const workloads::Layer& layer : workloads::Table2()) {
    if (layer.kind != workloads::LayerKind::kConv) continue;
    const search::Task task{"conv2d_nchwc.x86", workloads::Conv2dArgs(layer), Facts().target};
    absl::StatusOr<search::ConfigSpace> space = search::Space(task, Facts());
    ASSERT_TRUE(space.ok()) << space.status();
    std::mt19937_64 rng(3);
    absl::StatusOr<std::vector<std::vector<float>>> flat =
        itervar->FlatBatch(task, space->SampleUnique(4, rng));
    ASSERT_TRUE(flat.ok()) << layer.name << ": " << flat.status();
    for (const std::vector<float>& f : *flat) {
      EXPECT_EQ(f.size() % kNodeWidth, 0u);
      ExpectFinite(f, layer.name);
    }
  }
}

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (const auto& [name, args] : ArgsTable()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Templates, FeaturesOfTemplate, ::testing::ValuesIn(TableNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace tessel::costmodels
