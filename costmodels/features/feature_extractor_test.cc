// The program feature extractor on a real template: flat features agree with the loop tree and
// across threads, knob features are the value indices, errors name the template and config, and
// the helpers (kind names, PadRows, MakeLoopTree).
#include "costmodels/features/feature_extractor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "costmodels/features/curve.h"
#include "costmodels/features/itervar.h"

namespace tessel::costmodels {
namespace {

using ::testing::HasSubstr;

target::TargetFacts Facts() {
  target::TargetFacts f;
  f.target = target::Target::Llvm();
  f.vector_bits = 256;
  f.cores = 2;
  return f;
}

search::Task Matmul() {
  return {"matmul_tiled.x86", {{"m", 24}, {"n", 40}, {"k", 16}}, target::Target::Llvm()};
}

std::vector<search::Config> SomeConfigs(const search::Task& task, int n) {
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, Facts());
  EXPECT_TRUE(space.ok()) << space.status();
  std::mt19937_64 rng(7);
  return space->SampleUnique(n, rng);
}

TEST(FeatureExtractorTest, KindNames) {
  for (FeatureKind kind : {FeatureKind::kItervar, FeatureKind::kKnob, FeatureKind::kCurve}) {
    absl::StatusOr<FeatureKind> back = FeatureKindFromName(FeatureKindName(kind));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, kind);
  }
  absl::StatusOr<FeatureKind> bad = FeatureKindFromName("itervars");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'itervars'"));
}

TEST(FeatureExtractorTest, PadRowsAndLoopTree) {
  EXPECT_EQ(PadRows({{1}, {1, 2, 3}, {}}),
            (std::vector<std::vector<float>>{{1, 0, 0}, {1, 2, 3}, {0, 0, 0}}));
  // Loops 0 and 2 at top level, 1 inside 0, 3 inside 2.
  LoopTree t = MakeLoopTree({{1, 1}, {2, 2}, {3, 3}, {4, 4}}, {-1, 0, -1, 2});
  ASSERT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(t.nodes[0].features, (std::vector<float>{0, 0}));
  EXPECT_EQ(t.nodes[0].children, (std::vector<int>{1, 3}));
  EXPECT_EQ(t.nodes[1].children, (std::vector<int>{2}));
  EXPECT_EQ(t.nodes[3].children, (std::vector<int>{4}));
  EXPECT_EQ(t.nodes[4].features, (std::vector<float>{4, 4}));
}

TEST(FeatureExtractorTest, KnobFeaturesAreValueIndices) {
  const search::Task task = Matmul();
  std::unique_ptr<FeatureExtractor> x = MakeProgramFeatureExtractor(FeatureKind::kKnob, Facts());
  for (const search::Config& c : SomeConfigs(task, 5)) {
    absl::StatusOr<std::vector<float>> f = x->Flat(task, c);
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_EQ(f->size(), c.value_indices().size());
    for (size_t i = 0; i < f->size(); ++i) EXPECT_EQ((*f)[i], c.value_indices()[i]);
  }
}

TEST(FeatureExtractorTest, FlatIsTheTreeInProgramOrder) {
  const search::Task task = Matmul();
  std::unique_ptr<FeatureExtractor> x = MakeProgramFeatureExtractor(FeatureKind::kItervar, Facts());
  for (const search::Config& c : SomeConfigs(task, 4)) {
    absl::StatusOr<std::vector<float>> flat = x->Flat(task, c);
    absl::StatusOr<LoopTree> tree = x->Tree(task, c);
    ASSERT_TRUE(flat.ok() && tree.ok()) << flat.status() << tree.status();
    ASSERT_EQ(flat->size(), (tree->nodes.size() - 1) * kNodeWidth);
    EXPECT_EQ(tree->nodes[0].features, std::vector<float>(kNodeWidth, 0.0f));
    for (size_t n = 1; n < tree->nodes.size(); ++n) {
      EXPECT_TRUE(std::equal(tree->nodes[n].features.begin(), tree->nodes[n].features.end(),
                             flat->begin() + (n - 1) * kNodeWidth));
    }
    // Every node but the root is the child of exactly one node with a smaller index.
    std::vector<int> parents(tree->nodes.size(), -1);
    for (size_t n = 0; n < tree->nodes.size(); ++n) {
      for (int child : tree->nodes[n].children) {
        EXPECT_GT(child, static_cast<int>(n));
        EXPECT_EQ(parents[child], -1);
        parents[child] = static_cast<int>(n);
      }
    }
    for (size_t n = 1; n < parents.size(); ++n) EXPECT_GE(parents[n], 0);
    // Asked again (from the cache): the same.
    absl::StatusOr<std::vector<float>> again = x->Flat(task, c);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *flat);
  }
}

TEST(FeatureExtractorTest, BatchesMatchSingleCallsOnAnyThreads) {
  const search::Task task = Matmul();
  const std::vector<search::Config> configs = SomeConfigs(task, 24);
  for (FeatureKind kind : {FeatureKind::kItervar, FeatureKind::kCurve}) {
    std::unique_ptr<FeatureExtractor> one = MakeProgramFeatureExtractor(kind, Facts(), 1, 0);
    std::unique_ptr<FeatureExtractor> three = MakeProgramFeatureExtractor(kind, Facts(), 3);
    absl::StatusOr<std::vector<std::vector<float>>> batch = three->FlatBatch(task, configs);
    ASSERT_TRUE(batch.ok()) << batch.status();
    ASSERT_EQ(batch->size(), configs.size());
    for (size_t i = 0; i < configs.size(); ++i) {
      absl::StatusOr<std::vector<float>> single = one->Flat(task, configs[i]);
      ASSERT_TRUE(single.ok());
      EXPECT_EQ((*batch)[i], *single) << FeatureKindName(kind) << " " << i;
      if (kind == FeatureKind::kCurve) {
        EXPECT_EQ(single->size(), static_cast<size_t>(kCurveWidth));
      }
    }
    absl::StatusOr<std::vector<LoopTree>> trees = three->TreeBatch(task, configs);
    ASSERT_TRUE(trees.ok()) << trees.status();
    ASSERT_EQ(trees->size(), configs.size());
    absl::StatusOr<LoopTree> first = one->Tree(task, configs[0]);
    ASSERT_TRUE(first.ok());
    ASSERT_EQ((*trees)[0].nodes.size(), first->nodes.size());
    for (size_t n = 0; n < first->nodes.size(); ++n) {
      EXPECT_EQ((*trees)[0].nodes[n].features, first->nodes[n].features);
      EXPECT_EQ((*trees)[0].nodes[n].children, first->nodes[n].children);
    }
  }
}

TEST(FeatureExtractorTest, ErrorsNameTemplateAndConfig) {
  const std::vector<search::Config> configs = SomeConfigs(Matmul(), 3);
  const std::string config = configs[1].ToString();
  std::unique_ptr<FeatureExtractor> x =
      MakeProgramFeatureExtractor(FeatureKind::kItervar, Facts(), 2);

  search::Task unknown = Matmul();
  unknown.template_name = "no_such_template.x86";
  absl::StatusOr<std::vector<float>> f = x->Flat(unknown, configs[1]);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("no_such_template.x86"));
  EXPECT_THAT(f.status().message(), HasSubstr(config));

  // Arguments the template rejects when it instantiates: the template's message (naming the key)
  // comes through, headed by the template and config.
  search::Task bad = Matmul();
  bad.args.erase("k");
  absl::StatusOr<LoopTree> t = x->Tree(bad, configs[1]);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("matmul_tiled.x86"));
  EXPECT_THAT(t.status().message(), HasSubstr(config));
  EXPECT_THAT(t.status().message(), HasSubstr("'k'"));

  // In a batch, the first config's error.
  absl::StatusOr<std::vector<std::vector<float>>> batch = x->FlatBatch(bad, configs);
  ASSERT_FALSE(batch.ok());
  EXPECT_THAT(batch.status().message(), HasSubstr(configs[0].ToString()));
}

}  // namespace
}  // namespace tessel::costmodels
