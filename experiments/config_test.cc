// Experiment configs: a full config reads back field by field, defaults apply, the shipped configs
// parse, and every kind of mistake is one error naming the key and its line.
#include "experiments/config.h"

#include <absl/status/status.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace tessel::experiments {
namespace {

KnownNames Known() {
  return {{"random", "treernn", "xgb"},
          {"ga", "grid", "random", "sa"},
          {"conv2d_nchw.x86", "conv2d_nchwc.x86", "conv2d_winograd.x86", "dense_pack.x86"},
          {},
          {}};
}

absl::StatusOr<ExperimentConfig> Parse(const std::string& text) {
  return ParseExperimentConfig(text, "test.yaml", Known());
}

constexpr char kFull[] = R"(name: fig12_costmodels
target: llvm -mcpu=native
threads: 2
model_threads: 2
trials: 800
seeds: [0, 1, 2]
workloads:
  - C6
  - {name: tiny, template: dense_pack.x86, args: {m: 4, n: 8, k: "16", scale: 0.5, bias: true}}
template: conv2d_nchwc.x86
strategies:
  - {name: xgb+sa, cost_model: xgb, explorer: sa, plan_size: 32, epsilon: 0.1, diversity: true}
  - {name: treernn+sa, cost_model: treernn, explorer: sa, features: curve,
     transfer_from: [a.jsonl, results/x/<cpu>/logs]}
  - {name: ga, explorer: ga, explorer_params: {population: 16}}
  - {name: random, explorer: random}
baselines: [onednn]
measure: {repeat: 5, number: 2, min_repeat_ms: 20, timeout_seconds: 4.5, build_workers: 3,
          flush_cache: true, check_correctness: false, atol: 0.01, rtol: 0.02}
early_stopping: 400
)";

TEST(ConfigTest, ReadsEveryField) {
  absl::StatusOr<ExperimentConfig> c = Parse(kFull);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "fig12_costmodels");
  EXPECT_EQ(c->target.ToString(), "llvm -mcpu=native");
  EXPECT_EQ(c->threads, 2);
  EXPECT_EQ(c->model_threads, 2);
  EXPECT_EQ(c->trials, 800);
  EXPECT_EQ(c->seeds, (std::vector<uint64_t>{0, 1, 2}));
  ASSERT_EQ(c->workloads.size(), 2u);
  EXPECT_EQ(c->workloads[0].name, "C6");
  EXPECT_TRUE(c->workloads[0].table2);
  EXPECT_EQ(c->workloads[0].args["ic"], 128);
  EXPECT_EQ(c->workloads[0].args["h"], 28);
  EXPECT_EQ(c->workloads[0].line, 8);
  EXPECT_EQ(c->workloads[1].name, "tiny");
  EXPECT_FALSE(c->workloads[1].table2);
  EXPECT_EQ(c->workloads[1].template_name, "dense_pack.x86");
  // Plain scalars become numbers and booleans; quoted ones stay strings.
  EXPECT_EQ(c->workloads[1].args,
            nlohmann::json({{"m", 4}, {"n", 8}, {"k", "16"}, {"scale", 0.5}, {"bias", true}}));
  EXPECT_TRUE(c->workloads[1].args["m"].is_number_integer());
  EXPECT_EQ(c->template_name, "conv2d_nchwc.x86");
  ASSERT_EQ(c->strategies.size(), 4u);
  EXPECT_EQ(c->strategies[0].name, "xgb+sa");
  EXPECT_EQ(c->strategies[0].cost_model, "xgb");
  EXPECT_EQ(c->strategies[0].explorer, "sa");
  EXPECT_EQ(c->strategies[0].plan_size, 32);
  EXPECT_DOUBLE_EQ(c->strategies[0].epsilon, 0.1);
  EXPECT_TRUE(c->strategies[0].diversity);
  EXPECT_EQ(c->strategies[1].features, "curve");
  EXPECT_EQ(c->strategies[1].transfer_from,
            (std::vector<std::string>{"a.jsonl", "results/x/<cpu>/logs"}));
  EXPECT_TRUE(c->strategies[0].transfer_from.empty());
  EXPECT_EQ(c->strategies[2].cost_model, "");
  EXPECT_EQ(c->strategies[2].explorer_params, nlohmann::json({{"population", 16}}));
  EXPECT_EQ(c->strategies[3].explorer, "random");
  EXPECT_EQ(c->baselines, std::vector<std::string>{"onednn"});
  EXPECT_EQ(c->measure.repeat, 5);
  EXPECT_EQ(c->measure.number, 2);
  EXPECT_DOUBLE_EQ(c->measure.min_repeat_ms, 20);
  EXPECT_DOUBLE_EQ(c->measure.timeout_seconds, 4.5);
  EXPECT_EQ(c->measure.build_workers, 3);
  EXPECT_TRUE(c->measure.flush_cache);
  EXPECT_FALSE(c->measure.check_correctness);
  EXPECT_DOUBLE_EQ(c->measure.atol, 0.01);
  EXPECT_DOUBLE_EQ(c->measure.rtol, 0.02);
  EXPECT_EQ(c->early_stopping, 400);
  EXPECT_EQ(c->source_text, kFull);
  EXPECT_EQ(c->source_path, "test.yaml");
}

TEST(ConfigTest, KindTuningIsTheDefault) {
  absl::StatusOr<ExperimentConfig> c = Parse(
      "kind: tuning\nname: q\ntrials: 10\nworkloads: [C1]\nstrategies: [{name: r, explorer: "
      "random}]\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->name, "q");
}

TEST(ConfigTest, DefaultsApply) {
  absl::StatusOr<ExperimentConfig> c =
      Parse("name: q\ntrials: 10\nworkloads: [C1]\nstrategies: [{name: r, explorer: random}]\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->target.ToString(), "llvm");
  EXPECT_EQ(c->threads, 1);
  EXPECT_EQ(c->seeds, std::vector<uint64_t>{0});
  EXPECT_TRUE(c->baselines.empty());
  EXPECT_EQ(c->template_name, "");
  EXPECT_EQ(c->measure.repeat, 3);
  EXPECT_EQ(c->measure.build_workers, 2);
  EXPECT_TRUE(c->measure.check_correctness);
  EXPECT_EQ(c->early_stopping, 0);
  EXPECT_EQ(c->strategies[0].cost_model, "");
  EXPECT_EQ(c->strategies[0].features, "itervar");
}

TEST(ConfigTest, ShippedConfigsParse) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  for (const char* name : {"fig12_costmodels", "quickstart", "tuned_table2"}) {
    const std::string path = std::string(srcdir) + "/tessel/experiments/configs/" + name + ".yaml";
    absl::StatusOr<ExperimentConfig> c = LoadExperimentConfig(path, Known());
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->name, name);
  }
  absl::StatusOr<ExperimentConfig> fig12 = LoadExperimentConfig(
      std::string(srcdir) + "/tessel/experiments/configs/fig12_costmodels.yaml", Known());
  ASSERT_TRUE(fig12.ok());
  EXPECT_EQ(fig12->trials, 800);
  EXPECT_EQ(fig12->seeds.size(), 3u);
  EXPECT_EQ(fig12->strategies.size(), 4u);
  EXPECT_EQ(fig12->template_name, "conv2d_nchwc.x86");
  absl::StatusOr<ExperimentConfig> table2 = LoadExperimentConfig(
      std::string(srcdir) + "/tessel/experiments/configs/tuned_table2.yaml", Known());
  ASSERT_TRUE(table2.ok());
  EXPECT_EQ(table2->workloads.size(), 12u);
  EXPECT_GE(table2->trials, 200);
}

TEST(ConfigTest, MissingFileIsNotFound) {
  absl::StatusOr<ExperimentConfig> c = LoadExperimentConfig("/nonexistent/x.yaml", Known());
  EXPECT_TRUE(absl::IsNotFound(c.status())) << c.status();
  EXPECT_NE(c.status().message().find("/nonexistent/x.yaml"), std::string::npos);
}

struct BadCase {
  const char* what;
  std::string text;
  std::string key;   // the key the message must name
  int line;          // the line it must name
  std::string also;  // another piece the message must contain
};

constexpr char kHead[] = "name: q\ntrials: 10\nworkloads: [C1]\n";
constexpr char kStrategies[] = "strategies: [{name: r, explorer: random}]\n";

std::string Base(const std::string& extra) { return std::string(kHead) + kStrategies + extra; }

void PrintTo(const BadCase& bad, std::ostream* os) { *os << bad.what; }

class BadConfigTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadConfigTest, OneErrorNamingKeyAndLine) {
  const BadCase& bad = GetParam();
  absl::StatusOr<ExperimentConfig> c = Parse(bad.text);
  ASSERT_FALSE(c.ok()) << bad.what << " was accepted";
  EXPECT_TRUE(absl::IsInvalidArgument(c.status())) << c.status();
  const std::string message(c.status().message());
  EXPECT_NE(message.find("test.yaml:" + std::to_string(bad.line) + ": "), std::string::npos)
      << bad.what << ": " << message;
  EXPECT_NE(message.find(bad.key + ": "), std::string::npos) << bad.what << ": " << message;
  EXPECT_NE(message.find(bad.also), std::string::npos) << bad.what << ": " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Mistakes, BadConfigTest,
    ::testing::Values(
        BadCase{"malformed YAML", "name: q\ntrials: [1, 2\n", "", 3, "not valid YAML"},
        BadCase{"not a map", "- a\n- b\n", "(top level)", 1, "YAML map"},
        BadCase{"missing name", "trials: 10\nworkloads: [C1]\n", "name", 1, "missing"},
        BadCase{"missing trials", "name: q\nworkloads: [C1]\n", "trials", 1, "missing"},
        BadCase{"missing workloads", "name: q\ntrials: 3\n", "workloads", 1, "missing"},
        BadCase{"missing strategies", kHead, "strategies", 1, "missing"},
        BadCase{"unknown top key", Base("trails: 4\n"), "trails", 5, "unknown key"},
        BadCase{"another kind", Base("kind: models\n"), "kind", 5,
                "unknown experiment kind 'models'; known: tuning"},
        BadCase{"repeated key", Base("threads: 1\nthreads: 2\n"), "threads", 6, "twice"},
        BadCase{"name not a string", "name: [a]\ntrials: 1\n", "name", 1, "expected a non-empty"},
        BadCase{"name unusable in paths", "name: a/b\ntrials: 1\n", "name", 1, "usable name"},
        BadCase{"trials not a number", "name: q\ntrials: many\n", "trials", 2, "integer"},
        BadCase{"trials fractional", "name: q\ntrials: 1.5\n", "trials", 2, "integer"},
        BadCase{"trials zero", "name: q\ntrials: 0\n", "trials", 2, "between 1 and"},
        BadCase{"threads negative", Base("threads: -2\n"), "threads", 5, "between 1 and 1024"},
        BadCase{"model_threads zero", Base("model_threads: 0\n"), "model_threads", 5, "between"},
        BadCase{"early_stopping negative", Base("early_stopping: -1\n"), "early_stopping", 5,
                "between 0"},
        BadCase{"target a list", Base("target: [llvm]\n"), "target", 5, "expected"},
        BadCase{"target of no kind", Base("target: rocm\n"), "target", 5, "unknown kind 'rocm'"},
        BadCase{"seeds a scalar", Base("seeds: 3\n"), "seeds", 5, "expected a list"},
        BadCase{"seeds empty", Base("seeds: []\n"), "seeds", 5, "must not be empty"},
        BadCase{"seed negative", Base("seeds: [0, -1]\n"), "seeds[1]", 5, "between 0"},
        BadCase{"seed repeated", Base("seeds:\n  - 1\n  - 1\n"), "seeds[1]", 7, "twice"},
        BadCase{"workloads a map", "name: q\ntrials: 1\nworkloads: {a: 1}\n", "workloads", 3,
                "expected a list"},
        BadCase{"unknown workload", "name: q\ntrials: 1\nworkloads: [C1, C13]\n", "workloads[1]", 3,
                "no layer 'C13'"},
        BadCase{"workload repeated", "name: q\ntrials: 1\nworkloads: [C1, C1]\n", "workloads[1]", 3,
                "twice"},
        BadCase{"workload unknown key",
                "name: q\ntrials: 1\nworkloads:\n  - {name: C1, layer: 3}\n", "workloads[0].layer",
                4, "unknown key"},
        BadCase{"workload without name", "name: q\ntrials: 1\nworkloads:\n  - {template: x}\n",
                "workloads[0].name", 4, "missing"},
        BadCase{"unknown workload template",
                "name: q\ntrials: 1\nworkloads:\n  - {name: C1, template: conv9.x86}\n",
                "workloads[0].template", 4, "unknown template 'conv9.x86'"},
        BadCase{
            "args not a map",
            "name: q\ntrials: 1\nworkloads:\n  - {name: d, template: dense_pack.x86, args: 3}\n",
            "workloads[0].args", 4, "expected a map"},
        BadCase{"args without template",
                "name: q\ntrials: 1\nworkloads:\n  - {name: d, args: {m: 1}}\n",
                "workloads[0].template", 4, "needs a template"},
        BadCase{"unknown top template", Base("template: conv9.x86\n"), "template", 5,
                "unknown template"},
        BadCase{"strategies empty", std::string(kHead) + "strategies: []\n", "strategies", 4,
                "must not be empty"},
        BadCase{"strategy a scalar", std::string(kHead) + "strategies: [xgb]\n", "strategies[0]", 4,
                "expected a map"},
        BadCase{"strategy without name", std::string(kHead) + "strategies: [{explorer: ga}]\n",
                "strategies[0].name", 4, "missing"},
        BadCase{"strategy without explorer", std::string(kHead) + "strategies: [{name: g}]\n",
                "strategies[0].explorer", 4, "missing"},
        BadCase{"unknown explorer",
                std::string(kHead) + "strategies:\n  - {name: g, explorer: tabu}\n",
                "strategies[0].explorer", 5, "unknown explorer 'tabu'; known: ga, grid"},
        BadCase{"unknown cost model",
                std::string(kHead) + "strategies:\n  - {name: g, explorer: sa, cost_model: gbm}\n",
                "strategies[0].cost_model", 5, "unknown cost model 'gbm'; known: random"},
        BadCase{"unknown strategy key",
                std::string(kHead) + "strategies:\n  - {name: g, explorer: ga, model: xgb}\n",
                "strategies[0].model", 5, "unknown key"},
        BadCase{"strategy repeated",
                std::string(kHead) +
                    "strategies:\n  - {name: g, explorer: ga}\n  - {name: g, explorer: random}\n",
                "strategies[1].name", 6, "twice"},
        BadCase{"unknown features",
                std::string(kHead) +
                    "strategies:\n  - {name: x, explorer: sa, cost_model: xgb, features: raw}\n",
                "strategies[0].features", 5, "unknown feature kind 'raw'"},
        BadCase{"plan_size without a model",
                std::string(kHead) + "strategies:\n  - {name: g, explorer: ga, plan_size: 8}\n",
                "strategies[0].plan_size", 5, "cost_model only"},
        BadCase{"transfer_from without a model",
                std::string(kHead) + "strategies:\n  - {name: g, explorer: ga, transfer_from: l}\n",
                "strategies[0].transfer_from", 5, "cost_model only"},
        BadCase{
            "transfer_from an empty list",
            std::string(kHead) +
                "strategies:\n  - {name: x, explorer: sa, cost_model: xgb, transfer_from: []}\n",
            "strategies[0].transfer_from", 5, "an empty list"},
        BadCase{"transfer_from a map",
                std::string(kHead) +
                    "strategies:\n  - {name: x, explorer: sa, cost_model: xgb, transfer_from: {a: "
                    "1}}\n",
                "strategies[0].transfer_from", 5, "expected a non-empty string"},
        BadCase{"epsilon out of range",
                std::string(kHead) +
                    "strategies:\n  - {name: x, explorer: sa, cost_model: xgb, epsilon: 2}\n",
                "strategies[0].epsilon", 5, "between 0 and 1"},
        BadCase{"diversity not a bool",
                std::string(kHead) +
                    "strategies:\n  - {name: x, explorer: sa, cost_model: xgb, diversity: yes}\n",
                "strategies[0].diversity", 5, "true or false"},
        BadCase{
            "explorer_params a list",
            std::string(kHead) + "strategies:\n  - {name: g, explorer: ga, explorer_params: [1]}\n",
            "strategies[0].explorer_params", 5, "expected a map"},
        BadCase{"unknown baseline", Base("baselines: [mkl]\n"), "baselines[0]", 5,
                "unknown baseline 'mkl'; known: onednn"},
        BadCase{"baselines a scalar", Base("baselines: onednn\n"), "baselines", 5,
                "expected a list"},
        BadCase{"measure a list", Base("measure: [1]\n"), "measure", 5, "expected a map"},
        BadCase{"unknown measure key", Base("measure:\n  repeats: 3\n"), "measure.repeats", 6,
                "unknown key"},
        BadCase{"measure repeat zero", Base("measure: {repeat: 0}\n"), "measure.repeat", 5,
                "between 1"},
        BadCase{"measure timeout text", Base("measure: {timeout_seconds: soon}\n"),
                "measure.timeout_seconds", 5, "expected a number"},
        BadCase{"measure timeout infinite", Base("measure: {timeout_seconds: .inf}\n"),
                "measure.timeout_seconds", 5, "expected a number"},
        BadCase{"measure workers zero", Base("measure: {build_workers: 0}\n"),
                "measure.build_workers", 5, "between 1"},
        BadCase{"measure min_repeat_ms negative", Base("measure: {min_repeat_ms: -5}\n"),
                "measure.min_repeat_ms", 5, "between 0"},
        BadCase{"measure check not a bool", Base("measure: {check_correctness: 1}\n"),
                "measure.check_correctness", 5, "true or false"}));

}  // namespace
}  // namespace tessel::experiments
