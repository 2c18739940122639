// The markdown report of a failed run, and the run in Google Benchmark's JSON output format.
#include "experiments/nightly/report.h"

#include <gtest/gtest.h>

#include <set>

#include "experiments/nightly/test_records.h"

namespace tessel::experiments::nightly {
namespace {

Figure Fig(const std::string& name, const std::string& family, const std::string& unit,
           bool higher_is_better, double value, nlohmann::json absolute) {
  Figure f = testing::TestFigure(name, family, unit, higher_is_better, value, {0.99, 1.0, 1.01});
  f.absolute = std::move(absolute);
  return f;
}

Record Base() {
  Record r = testing::TestRecord("abc123", "2024-05-01T02:00:00Z");
  r.versions = {{"onednn", "3.1.1"}, {"libtorch", "2.1.0"}};
  r.figures = {
      Fig("network/resnet18", "networks", "x", true, 2.01,
          {{"tessel_ms", 3.1}, {"libtorch_ms", 6.23}}),
      Fig("gemm_1024", "gemm", "x", true, 1.31, {{"tessel_ms", 1.5}, {"openblas_ms", 1.97}}),
      Fig("compile/resnet18", "compile", "s", false, 12.0, nlohmann::json::object()),
  };
  return r;
}

// This run: resnet18 25% slower, gemm_1024 not measured, a new figure.
Record Current() {
  Record r = Base();
  r.date = "2024-05-02T02:00:00Z";
  r.commit = "def456";
  r.state = "modified";
  r.figures = {
      Fig("network/resnet18", "networks", "x", true, 1.608,
          {{"tessel_ms", 3.88}, {"libtorch_ms", 6.24}}),
      Fig("compile/resnet18", "compile", "s", false, 12.2, nlohmann::json::object()),
      Fig("network/dqn", "networks", "x", true, 0.93, {{"tessel_ms", 0.2}, {"libtorch_ms", 0.19}}),
  };
  return r;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ReportTest, MarkdownSaysFailAndNamesEachFailure) {
  const Record current = Current();
  absl::StatusOr<Verdict> v = Judge(current, Base(), {});
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_FALSE(v->passed);
  const std::string md = MarkdownReport(current, *v);
  for (const char* part : {
           "# Nightly benchmarks: quick suite\n",
           "- date: 2024-05-02T02:00:00Z\n",
           "- commit: def456 (modified)\n",
           "- machine: AMD EPYC 7B13\n",
           "- cpu: znver3, threads: 2\n",
           "- libraries: libtorch 2.1.0, onednn 3.1.1\n",
           "- baseline: commit abc123 (2024-05-01T02:00:00Z)\n",
           "**FAIL**: 2 failures\n",
           "## networks\n",
           "## gemm\n",
           "## compile\n",
           "| figure | baseline | this run | change | threshold | status | absolute |\n",
           "| compile/resnet18 | 12.0 s | 12.2 s | +1.7% | 19.8% | unchanged |  |\n",
           "| gemm_1024 | 1.31x | - | - | - | **missing** |  |\n",
           "| network/dqn | - | 0.93x | - | - | new | libtorch 0.19 ms, tessel 0.20 ms |\n",
       }) {
    EXPECT_TRUE(Contains(md, part)) << "no '" << part << "' in\n" << md;
  }
  for (const std::string& line : FailureLines(*v)) {
    EXPECT_TRUE(Contains(md, "- " + line + "\n")) << line << "\n" << md;
  }
  EXPECT_TRUE(Contains(md, "- regression: network/resnet18 2.01x -> 1.61x (-20.0%")) << md;
  EXPECT_TRUE(Contains(md, "| network/resnet18 | 2.01x | 1.61x | -20.0% |")) << md;
  EXPECT_TRUE(Contains(md, "| **regressed** | libtorch 6.24 ms, tessel 3.88 ms |")) << md;
  EXPECT_FALSE(Contains(md, "PASS")) << md;
}

TEST(ReportTest, MarkdownSaysPassWhenNothingFailed) {
  const Record base = Base();
  Record current = base;
  current.commit = "def456";
  absl::StatusOr<Verdict> v = Judge(current, base, {});
  ASSERT_TRUE(v.ok()) << v.status();
  const std::string md = MarkdownReport(current, *v);
  EXPECT_TRUE(Contains(md,
                       "**PASS**: no figure regressed beyond its noise (commits "
                       "abc123..def456; 0 improved, 0 new)\n"))
      << md;
  EXPECT_FALSE(Contains(md, "FAIL")) << md;
}

TEST(ReportTest, GoogleBenchmarkJsonHasTheFormatsFields) {
  HostFacts host;
  host.host_name = "bench-1";
  host.executable = "/usr/bin/tessel";
  host.num_cpus = 2;
  host.mhz_per_cpu = 2450;
  const nlohmann::json j = GoogleBenchmarkJson(Current(), host);
  const nlohmann::json& context = j.at("context");
  EXPECT_EQ(context.at("date"), "2024-05-02T02:00:00Z");
  EXPECT_EQ(context.at("host_name"), "bench-1");
  EXPECT_EQ(context.at("executable"), "/usr/bin/tessel");
  EXPECT_EQ(context.at("num_cpus"), 2);
  EXPECT_EQ(context.at("mhz_per_cpu"), 2450);
  EXPECT_EQ(context.at("cpu_scaling_enabled"), false);
  EXPECT_TRUE(context.at("caches").is_array());
  EXPECT_TRUE(context.at("load_avg").is_array());
  EXPECT_TRUE(context.at("library_build_type") == "release" ||
              context.at("library_build_type") == "debug");
  EXPECT_EQ(context.at("json_schema_version"), 1);
  EXPECT_EQ(context.at("tessel_commit"), "def456");
  EXPECT_EQ(context.at("tessel_state"), "modified");
  EXPECT_EQ(context.at("onednn_version"), "3.1.1");

  const nlohmann::json& benchmarks = j.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 3u);
  const std::set<std::string> units = {"ns", "us", "ms", "s"};
  for (const nlohmann::json& b : benchmarks) {
    for (const char* key : {"name", "family_index", "per_family_instance_index", "run_name",
                            "run_type", "repetitions", "repetition_index", "threads", "iterations",
                            "real_time", "cpu_time", "time_unit", "value"}) {
      EXPECT_TRUE(b.contains(key)) << key << " in " << b.dump();
    }
    EXPECT_EQ(b.at("run_type"), "iteration");
    EXPECT_EQ(b.at("iterations"), 1);
    EXPECT_EQ(b.at("threads"), 2);
    EXPECT_EQ(b.at("run_name"), b.at("name"));
    EXPECT_TRUE(b.at("real_time").is_number()) << b.dump();
    EXPECT_TRUE(units.count(b.at("time_unit").get<std::string>())) << b.dump();
  }
  const nlohmann::json& resnet = benchmarks[0];
  EXPECT_EQ(resnet.at("name"), "network/resnet18");
  EXPECT_EQ(resnet.at("real_time"), 3.88);  // our time, not the ratio
  EXPECT_EQ(resnet.at("cpu_time"), 3.88);
  EXPECT_EQ(resnet.at("time_unit"), "ms");
  EXPECT_EQ(resnet.at("value"), 1.608);
  EXPECT_EQ(resnet.at("libtorch_ms"), 6.24);
  EXPECT_EQ(resnet.at("repeats"), 3);
  EXPECT_EQ(resnet.at("label"), "1.61x (higher is better)");
  const nlohmann::json& compile = benchmarks[1];
  EXPECT_EQ(compile.at("real_time"), 12.2);  // no absolute time: the value, in its unit
  EXPECT_EQ(compile.at("time_unit"), "s");
  // Families are numbered in order of appearance, instances within each.
  EXPECT_EQ(resnet.at("family_index"), 0);
  EXPECT_EQ(compile.at("family_index"), 1);
  EXPECT_EQ(benchmarks[2].at("family_index"), 0);
  EXPECT_EQ(benchmarks[2].at("per_family_instance_index"), 1);
}

TEST(ReportTest, ThisHostKnowsItsCpusAndExecutable) {
  const HostFacts host = ThisHost();
  EXPECT_GT(host.num_cpus, 0);
  EXPECT_FALSE(host.executable.empty());
  EXPECT_FALSE(host.host_name.empty());
  EXPECT_EQ(host.load_avg.size(), 3u);
}

}  // namespace
}  // namespace tessel::experiments::nightly
