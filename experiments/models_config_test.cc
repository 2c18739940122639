// Models experiment configs (`kind: models`): a full config reads back field by field, defaults
// apply, the shipped fig4/fig14 configs parse, ParseAnyConfig tells the kinds apart, and every
// kind of mistake is one error naming the key and its line.
#include "experiments/models_config.h"

#include <absl/status/status.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "experiments/load_config.h"

namespace tessel::experiments {
namespace {

KnownNames Known() {
  return {{"random", "treernn", "xgb"},
          {"ga", "grid", "random", "sa"},
          {"conv2d_nchwc.x86"},
          {"resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm", "conv_bn_relu", "rnn_cell"},
          {"resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm"}};
}

absl::StatusOr<ModelsConfig> Parse(const std::string& text) {
  return ParseModelsConfig(text, "m.yaml", Known());
}

constexpr char kFull[] = R"(kind: models
name: e2e
target: llvm -mcpu=native
threads: 2
batch: 4
repeat: 9
warmup: 1
min_repeat_ms: 25.5
chart: ms
networks: [resnet18, dqn]
variants:
  - {name: libtorch, baseline: libtorch}
  - {name: plain, optimize_graph: false}
  - {name: no_fusion, optimize_graph: true, fuse: false}
  - {name: tessel}
tolerance: {atol: 0.01, rtol: 0.02}
tuning:
  trials: 300
  cost_model: xgb
  explorer: sa
  explorer_params: {steps: 100}
  early_stopping: 50
  seed: 7
  transfer: false
  model_threads: 2
  measure: {repeat: 2, min_repeat_ms: 10, build_workers: 3, atol: 0.05}
)";

TEST(ModelsConfigTest, ReadsEveryField) {
  absl::StatusOr<ModelsConfig> c = Parse(kFull);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "e2e");
  EXPECT_EQ(c->target.ToString(), "llvm -mcpu=native");
  EXPECT_EQ(c->threads, 2);
  EXPECT_EQ(c->batch, 4);
  EXPECT_EQ(c->repeat, 9);
  EXPECT_EQ(c->warmup, 1);
  EXPECT_DOUBLE_EQ(c->min_repeat_ms, 25.5);
  EXPECT_EQ(c->chart, "ms");
  ASSERT_EQ(c->networks.size(), 2u);
  EXPECT_EQ(c->networks[0].name, "resnet18");
  EXPECT_EQ(c->networks[1].name, "dqn");
  EXPECT_EQ(c->networks[1].line, 10);
  ASSERT_EQ(c->variants.size(), 4u);
  EXPECT_EQ(c->variants[0].name, "libtorch");
  EXPECT_TRUE(c->variants[0].libtorch);
  EXPECT_FALSE(c->variants[1].libtorch);
  EXPECT_FALSE(c->variants[1].optimize_graph);
  EXPECT_FALSE(c->variants[1].fuse);  // nothing fuses without the graph optimizations
  EXPECT_TRUE(c->variants[2].optimize_graph);
  EXPECT_FALSE(c->variants[2].fuse);
  EXPECT_TRUE(c->variants[3].optimize_graph);
  EXPECT_TRUE(c->variants[3].fuse);
  EXPECT_EQ(c->variants[3].line, 15);
  EXPECT_DOUBLE_EQ(c->atol, 0.01);
  EXPECT_DOUBLE_EQ(c->rtol, 0.02);
  ASSERT_TRUE(c->tuning.has_value());
  EXPECT_EQ(c->tuning->trials, 300);
  EXPECT_EQ(c->tuning->cost_model, "xgb");
  EXPECT_EQ(c->tuning->explorer, "sa");
  EXPECT_EQ(c->tuning->explorer_params, nlohmann::json({{"steps", 100}}));
  EXPECT_EQ(c->tuning->early_stopping, 50);
  EXPECT_EQ(c->tuning->seed, 7u);
  EXPECT_FALSE(c->tuning->transfer);
  EXPECT_EQ(c->tuning->model_threads, 2);
  EXPECT_EQ(c->tuning->measure.repeat, 2);
  EXPECT_DOUBLE_EQ(c->tuning->measure.min_repeat_ms, 10);
  EXPECT_EQ(c->tuning->measure.build_workers, 3);
  EXPECT_DOUBLE_EQ(c->tuning->measure.atol, 0.05);
  EXPECT_DOUBLE_EQ(c->tuning->measure.rtol, -1);  // by template
  EXPECT_EQ(c->source_text, kFull);
  EXPECT_EQ(c->source_path, "m.yaml");
}

TEST(ModelsConfigTest, DefaultsApply) {
  absl::StatusOr<ModelsConfig> c =
      Parse("kind: models\nname: q\nnetworks: [rnn_cell]\nvariants: [{name: t}]\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->target.ToString(), "llvm");
  EXPECT_EQ(c->threads, 1);
  EXPECT_EQ(c->batch, 1);
  EXPECT_EQ(c->repeat, 7);
  EXPECT_EQ(c->warmup, 3);
  EXPECT_DOUBLE_EQ(c->min_repeat_ms, 50);
  EXPECT_EQ(c->chart, "speedup");
  EXPECT_DOUBLE_EQ(c->atol, 2e-3);
  EXPECT_TRUE(c->variants[0].optimize_graph);
  EXPECT_TRUE(c->variants[0].fuse);
  EXPECT_FALSE(c->tuning.has_value());
}

TEST(ModelsConfigTest, TuningStrategyDefaults) {
  const std::string head = "kind: models\nname: q\nnetworks: [dqn]\nvariants: [{name: t}]\n";
  absl::StatusOr<ModelsConfig> c = Parse(head + "tuning: {trials: 5}\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->tuning->cost_model, "xgb");
  EXPECT_EQ(c->tuning->explorer, "sa");
  EXPECT_TRUE(c->tuning->transfer);
  EXPECT_EQ(c->tuning->measure.repeat, 3);
  // An explorer alone is black-box; a cost model alone steers sa.
  c = Parse(head + "tuning: {trials: 5, explorer: ga}\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->tuning->cost_model, "");
  EXPECT_EQ(c->tuning->explorer, "ga");
  c = Parse(head + "tuning: {trials: 5, cost_model: treernn}\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->tuning->cost_model, "treernn");
  EXPECT_EQ(c->tuning->explorer, "sa");
}

std::string ShippedConfig(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir == nullptr ? "." : srcdir) + "/tessel/experiments/configs/" + name +
         ".yaml";
}

KnownNames AllNetworks() {
  KnownNames known = Known();
  known.networks = {"resnet18",     "mobilenet_v1",      "dqn",      "dcgan",    "lstm_lm",
                    "conv_bn_relu", "depthwise_bn_relu", "rnn_cell", "lstm_cell"};
  return known;
}

TEST(ModelsConfigTest, ShippedConfigsParse) {
  absl::StatusOr<AnyConfig> fig4 = LoadAnyConfig(ShippedConfig("fig4_fusion"), AllNetworks());
  ASSERT_TRUE(fig4.ok()) << fig4.status();
  const ModelsConfig* f4 = std::get_if<ModelsConfig>(&*fig4);
  ASSERT_NE(f4, nullptr);
  EXPECT_EQ(f4->name, "fig4_fusion");
  EXPECT_EQ(f4->threads, 2);
  EXPECT_EQ(f4->batch, 1);
  EXPECT_GE(f4->repeat, 5);
  EXPECT_EQ(f4->networks.size(), 4u);
  ASSERT_EQ(f4->variants.size(), 2u);
  EXPECT_FALSE(f4->variants[0].fuse);
  EXPECT_TRUE(f4->variants[1].fuse);
  EXPECT_TRUE(f4->variants[0].optimize_graph && f4->variants[1].optimize_graph);
  EXPECT_FALSE(f4->tuning.has_value());

  absl::StatusOr<AnyConfig> fig14 = LoadAnyConfig(ShippedConfig("fig14_end2end"), AllNetworks());
  ASSERT_TRUE(fig14.ok()) << fig14.status();
  const ModelsConfig* f14 = std::get_if<ModelsConfig>(&*fig14);
  ASSERT_NE(f14, nullptr);
  EXPECT_EQ(f14->threads, 2);
  EXPECT_EQ(f14->batch, 1);
  EXPECT_EQ(f14->chart, "ms");
  EXPECT_EQ(f14->networks.size(), 5u);
  ASSERT_EQ(f14->variants.size(), 3u);
  EXPECT_TRUE(f14->variants[0].libtorch);
  EXPECT_FALSE(f14->variants[1].optimize_graph);
  EXPECT_TRUE(f14->variants[2].optimize_graph && f14->variants[2].fuse);
  ASSERT_TRUE(f14->tuning.has_value());
  EXPECT_GE(f14->tuning->trials, 64);  // at least the tuner's first (random) plan

  absl::StatusOr<AnyConfig> fig19 = LoadAnyConfig(ShippedConfig("fig19_mali"), AllNetworks());
  ASSERT_TRUE(fig19.ok()) << fig19.status();
  const ModelsConfig* f19 = std::get_if<ModelsConfig>(&*fig19);
  ASSERT_NE(f19, nullptr);
  EXPECT_EQ(f19->target.ToString(), "opencl -device=mali");
  ASSERT_EQ(f19->networks.size(), 3u);
  EXPECT_EQ(f19->networks[2].name, "dqn");
  EXPECT_GE(f19->repeat, 5);
  EXPECT_FALSE(f19->tuning.has_value());
}

TEST(ModelsConfigTest, AnyConfigTellsTheKindsApart) {
  absl::StatusOr<AnyConfig> models = ParseAnyConfig(
      "kind: models\nname: q\nnetworks: [dqn]\nvariants: [{name: t}]\n", "a.yaml", Known());
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_TRUE(std::holds_alternative<ModelsConfig>(*models));
  absl::StatusOr<AnyConfig> tuning = ParseAnyConfig(
      "name: q\ntrials: 3\nworkloads: [C1]\nstrategies: [{name: r, explorer: random}]\n", "a.yaml",
      Known());
  ASSERT_TRUE(tuning.ok()) << tuning.status();
  EXPECT_TRUE(std::holds_alternative<ExperimentConfig>(*tuning));
  absl::StatusOr<AnyConfig> bad = ParseAnyConfig("name: q\nkind: sweep\n", "a.yaml", Known());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "a.yaml:2: kind: unknown experiment kind 'sweep'; known: models, tuning"),
            std::string::npos)
      << bad.status();
  EXPECT_TRUE(absl::IsNotFound(LoadAnyConfig("/nonexistent/m.yaml", Known()).status()));
  // A models key in a tuning config (no kind) is the tuning kind's unknown key.
  absl::StatusOr<AnyConfig> mixed = ParseAnyConfig("name: q\nnetworks: [dqn]\n", "a.yaml", Known());
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("a.yaml:2: networks: unknown key"), std::string::npos)
      << mixed.status();
}

struct BadCase {
  const char* what;
  std::string text;
  std::string key;   // the key the message must name
  int line;          // the line it must name
  std::string also;  // another piece the message must contain
};

void PrintTo(const BadCase& bad, std::ostream* os) { *os << bad.what; }

constexpr char kHead[] = "kind: models\nname: q\n";
constexpr char kBody[] = "networks: [dqn]\nvariants: [{name: t}]\n";

// A valid config with `extra` at line 5.
std::string With(const std::string& extra) { return std::string(kHead) + kBody + extra; }
// kHead, then `networks_and_variants` from line 3.
std::string Head(const std::string& networks_and_variants) {
  return std::string(kHead) + networks_and_variants;
}

class BadModelsConfigTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadModelsConfigTest, OneErrorNamingKeyAndLine) {
  const BadCase& bad = GetParam();
  absl::StatusOr<ModelsConfig> c = Parse(bad.text);
  ASSERT_FALSE(c.ok()) << bad.what << " was accepted";
  EXPECT_TRUE(absl::IsInvalidArgument(c.status())) << c.status();
  const std::string message(c.status().message());
  EXPECT_NE(message.find("m.yaml:" + std::to_string(bad.line) + ": "), std::string::npos)
      << bad.what << ": " << message;
  EXPECT_NE(message.find(bad.key + ": "), std::string::npos) << bad.what << ": " << message;
  EXPECT_NE(message.find(bad.also), std::string::npos) << bad.what << ": " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Mistakes, BadModelsConfigTest,
    ::testing::Values(
        BadCase{"malformed YAML", "kind: models\nname: [q\n", "", 3, "not valid YAML"},
        BadCase{"not a map", "- a\n", "(top level)", 1, "YAML map"},
        BadCase{"missing kind", std::string("name: q\n") + kBody, "kind", 1, "missing"},
        BadCase{"wrong kind", std::string("kind: tuning\nname: q\n") + kBody, "kind", 1,
                "unknown experiment kind 'tuning'; known: models"},
        BadCase{"missing name", std::string("kind: models\n") + kBody, "name", 1, "missing"},
        BadCase{"unknown top key", Head("name2: x\n"), "name2", 3, "unknown key"},
        BadCase{"name with a slash", std::string("kind: models\nname: a/b\n") + kBody, "name", 2,
                "usable name"},
        BadCase{"tuning keys at the top", With("trials: 10\n"), "trials", 5, "unknown key"},
        BadCase{"repeated key", With("batch: 1\nbatch: 2\n"), "batch", 6, "twice"},
        BadCase{"threads zero", With("threads: 0\n"), "threads", 5, "between 1 and 1024"},
        BadCase{"batch zero", With("batch: 0\n"), "batch", 5, "between 1"},
        BadCase{"batch text", With("batch: one\n"), "batch", 5, "expected an integer"},
        BadCase{"repeat below five", With("repeat: 3\n"), "repeat", 5, "between 5"},
        BadCase{"warmup negative", With("warmup: -1\n"), "warmup", 5, "between 0"},
        BadCase{"min_repeat_ms negative", With("min_repeat_ms: -1\n"), "min_repeat_ms", 5,
                "between 0"},
        BadCase{"unknown chart", With("chart: pie\n"), "chart", 5,
                "unknown chart 'pie'; known: ms, speedup"},
        BadCase{"target a list", With("target: [llvm]\n"), "target", 5, "expected"},
        BadCase{"target of no kind", With("target: rocm\n"), "target", 5, "unknown kind 'rocm'"},
        BadCase{"tolerance a number", With("tolerance: 0.1\n"), "tolerance", 5, "expected a map"},
        BadCase{"unknown tolerance key", With("tolerance: {eps: 1}\n"), "tolerance.eps", 5,
                "unknown key"},
        BadCase{"negative atol", With("tolerance: {atol: -1}\n"), "tolerance.atol", 5, "between 0"},
        BadCase{"missing networks", Head("variants: [{name: t}]\n"), "networks", 1, "missing"},
        BadCase{"networks empty", Head("networks: []\nvariants: [{name: t}]\n"), "networks", 3,
                "must not be empty"},
        BadCase{"networks a map", Head("networks: {a: 1}\nvariants: [{name: t}]\n"), "networks", 3,
                "expected a list"},
        BadCase{"unknown network", Head("networks: [dqn, vgg16]\nvariants: [{name: t}]\n"),
                "networks[1]", 3, "unknown network 'vgg16'; known: resnet18"},
        BadCase{"network twice", Head("networks:\n  - dqn\n  - dqn\nvariants: [{name: t}]\n"),
                "networks[1]", 5, "listed twice"},
        BadCase{"network without libtorch",
                Head("networks: [dqn, rnn_cell]\nvariants: [{name: torch, baseline: libtorch}]\n"),
                "networks[1]", 3,
                "'rnn_cell' has no libtorch version (variant 'torch' runs one); networks with "
                "one: resnet18"},
        BadCase{"missing variants", Head("networks: [dqn]\n"), "variants", 1, "missing"},
        BadCase{"variants empty", Head("networks: [dqn]\nvariants: []\n"), "variants", 4,
                "must not be empty"},
        BadCase{"variant a scalar", Head("networks: [dqn]\nvariants: [tessel]\n"), "variants[0]", 4,
                "expected a map"},
        BadCase{"variant without name", Head("networks: [dqn]\nvariants: [{fuse: true}]\n"),
                "variants[0].name", 4, "missing"},
        BadCase{"variant unknown key",
                Head("networks: [dqn]\nvariants:\n  - {name: t, layout: true}\n"),
                "variants[0].layout", 5, "unknown key"},
        BadCase{"variant twice",
                Head("networks: [dqn]\nvariants:\n  - {name: t}\n  - {name: t, fuse: false}\n"),
                "variants[1].name", 6, "listed twice"},
        BadCase{"unknown baseline",
                Head("networks: [dqn]\nvariants:\n  - {name: b, baseline: tensorflow}\n"),
                "variants[0].baseline", 5, "unknown baseline 'tensorflow'; known: libtorch"},
        BadCase{"baseline with Tessel options",
                Head("networks: [dqn]\nvariants:\n  - {name: b, baseline: libtorch, fuse: true}\n"),
                "variants[0].fuse", 5, "Tessel variants only"},
        BadCase{"fuse without graph optimizations",
                Head("networks: [dqn]\nvariants:\n  - {name: t, optimize_graph: false, fuse: "
                     "true}\n"),
                "variants[0].fuse", 5, "no effect with optimize_graph: false"},
        BadCase{"optimize_graph not a bool",
                Head("networks: [dqn]\nvariants:\n  - {name: t, optimize_graph: yes}\n"),
                "variants[0].optimize_graph", 5, "true or false"},
        BadCase{"tuning a list", With("tuning: [1]\n"), "tuning", 5, "expected a map"},
        BadCase{"tuning without trials", With("tuning:\n  explorer: ga\n"), "tuning.trials", 6,
                "missing"},
        BadCase{"tuning trials zero", With("tuning: {trials: 0}\n"), "tuning.trials", 5,
                "between 1"},
        BadCase{"tuning unknown key", With("tuning: {trials: 3, seeds: [1]}\n"), "tuning.seeds", 5,
                "unknown key"},
        BadCase{"tuning unknown explorer", With("tuning: {trials: 3, explorer: tabu}\n"),
                "tuning.explorer", 5, "unknown explorer 'tabu'; known: ga"},
        BadCase{"tuning unknown cost model", With("tuning: {trials: 3, cost_model: gbm}\n"),
                "tuning.cost_model", 5, "unknown cost model 'gbm'"},
        BadCase{"tuning explorer_params a list",
                With("tuning: {trials: 3, explorer_params: [1]}\n"), "tuning.explorer_params", 5,
                "expected a map"},
        BadCase{"tuning early_stopping negative", With("tuning: {trials: 3, early_stopping: -2}\n"),
                "tuning.early_stopping", 5, "between 0"},
        BadCase{"tuning seed negative", With("tuning: {trials: 3, seed: -2}\n"), "tuning.seed", 5,
                "between 0"},
        BadCase{"tuning transfer not a bool", With("tuning: {trials: 3, transfer: 2}\n"),
                "tuning.transfer", 5, "true or false"},
        BadCase{"tuning model_threads zero", With("tuning: {trials: 3, model_threads: 0}\n"),
                "tuning.model_threads", 5, "between 1"},
        BadCase{"tuning measure key", With("tuning:\n  trials: 3\n  measure: {repeats: 2}\n"),
                "tuning.measure.repeats", 7, "unknown key"},
        BadCase{"tuning measure workers",
                With("tuning: {trials: 3, measure: {build_workers: 0}}\n"),
                "tuning.measure.build_workers", 5, "between 1"},
        BadCase{"tuning for libtorch only",
                Head("networks: [dqn]\nvariants: [{name: b, baseline: libtorch}]\ntuning: "
                     "{trials: 3}\n"),
                "tuning", 5, "no Tessel variant"}));

}  // namespace
}  // namespace tessel::experiments
