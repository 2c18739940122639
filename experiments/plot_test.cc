// experiments/plot.py on a tiny trials.csv: one PNG per workload, named on its output; on a tiny
// models summary.csv: one bar chart of each kind; a bad CSV is an error with the script's message.
#include "experiments/plot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compiler/support/atomic_file.h"

namespace tessel::experiments {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

bool HasMatplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

std::string TmpDir(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

constexpr char kTrials[] =
    "workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup\n"
    "C6,xgb+sa,0,1,3,none,10.0,10.0,0.5\n"
    "C6,xgb+sa,0,2,7,none,30.0,30.0,1.5\n"
    "C6,xgb+sa,1,1,3,runtime,,0.0,0.0\n"
    "C6,random,0,1,2,none,5.0,5.0,0.25\n"
    "C6,random,0,2,9,none,8.0,8.0,0.4\n"
    "C6,random,0,3,4,none,1.0,8.0,0.4\n"
    "tiny,random,0,1,2,none,5.0,5.0,0.25\n";

TEST(PlotTest, WritesOnePngPerWorkload) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("plots");
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/trials.csv", kTrials).ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      RunPlotScript(*script, dir + "/trials.csv", dir, "demo", {}, kPython);
  ASSERT_TRUE(plots.ok()) << plots.status();
  ASSERT_EQ(plots->size(), 2u);
  EXPECT_EQ((*plots)[0], std::make_pair(std::string("C6"), std::string("C6.png")));
  EXPECT_EQ((*plots)[1], std::make_pair(std::string("tiny"), std::string("tiny.png")));
  for (const auto& [workload, png] : *plots) {
    std::ifstream file(dir + "/" + png, std::ios::binary);
    char magic[8] = {};
    file.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << png;
    EXPECT_GT(std::filesystem::file_size(dir + "/" + png), 5000u) << png;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST(PlotTest, ModelStrategiesGetAFigureOfTheirOwnWhereTwoRan) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("models");
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/trials.csv", kTrials).ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      RunPlotScript(*script, dir + "/trials.csv", dir, "demo", {"xgb+sa", "random"}, kPython);
  ASSERT_TRUE(plots.ok()) << plots.status();
  // tiny has one of the two strategies: no models figure for it.
  ASSERT_EQ(plots->size(), 3u);
  EXPECT_EQ((*plots)[0], std::make_pair(std::string("C6"), std::string("C6.png")));
  EXPECT_EQ((*plots)[1], std::make_pair(std::string("C6"), std::string("C6_models.png")));
  EXPECT_EQ((*plots)[2], std::make_pair(std::string("tiny"), std::string("tiny.png")));
  EXPECT_GT(std::filesystem::file_size(dir + "/C6_models.png"), 5000u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/tiny_models.png"));
}

TEST(PlotTest, PlotsGflopsWithoutABaseline) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("gflops");
  ASSERT_TRUE(
      support::WriteFileAtomically(
          dir + "/trials.csv",
          "workload,strategy,seed,trial,config_index,error,gflops,best_gflops,best_speedup\n"
          "d,ga,0,1,1,none,2.0,2.0,\n"
          "d,ga,0,2,5,none,3.0,3.0,\n")
          .ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      RunPlotScript(*script, dir + "/trials.csv", dir, "", {}, kPython);
  ASSERT_TRUE(plots.ok()) << plots.status();
  ASSERT_EQ(plots->size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dir + "/d.png"));
}

TEST(PlotTest, BadCsvIsAnErrorWithTheScriptsMessage) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("bad");
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/trials.csv", "workload,seed\nC6,0\n").ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      RunPlotScript(*script, dir + "/trials.csv", dir, "", {}, kPython);
  ASSERT_FALSE(plots.ok());
  EXPECT_NE(plots.status().message().find("missing columns"), std::string::npos) << plots.status();
}

constexpr char kSummary[] =
    "network,variant,median_ms,min_ms,max_ms,speedup\n"
    "conv_bn_relu,no_fusion,0.50,0.45,0.60,1.0\n"
    "conv_bn_relu,fusion,0.30,0.28,0.33,1.6\n"
    "rnn_cell,no_fusion,0.010,0.009,0.011,1.0\n"
    "rnn_cell,fusion,0.008,0.007,0.009,1.25\n";

TEST(PlotTest, BarChartsOfAModelsSummary) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("bars");
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/summary.csv", kSummary).ok());
  for (const char* values : {"speedup", "ms"}) {
    const std::string name = std::string(values) + ".png";
    absl::StatusOr<std::string> png =
        RunBarPlotScript(*script, dir + "/summary.csv", dir, "demo", values, name, kPython);
    ASSERT_TRUE(png.ok()) << png.status();
    EXPECT_EQ(*png, name);
    std::ifstream file(dir + "/" + name, std::ios::binary);
    char magic[8] = {};
    file.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << name;
    EXPECT_GT(std::filesystem::file_size(dir + "/" + name), 5000u) << name;
  }
  // A tuning experiment's trials.csv is not a summary: the script says which columns it lacks.
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/trials.csv", kTrials).ok());
  absl::StatusOr<std::string> png =
      RunBarPlotScript(*script, dir + "/trials.csv", dir, "", "speedup", "x.png", kPython);
  ASSERT_FALSE(png.ok());
  EXPECT_NE(png.status().message().find("missing columns"), std::string::npos) << png.status();
}

TEST(PlotTest, RooflineOfLayersWithAndWithoutLatencyHiding) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = TmpDir("roofline");
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/fig10.csv",
                                           "layer,hiding,ops_per_byte,gops,peak_gops,gbytes_per_s\n"
                                           "C2,off,174.8,79.6,102.4,3.2\n"
                                           "C2,on,100.0,95.5,102.4,3.2\n"
                                           "C3,off,57.8,49.5,102.4,3.2\n")
                  .ok());
  absl::StatusOr<std::string> png =
      RunRooflinePlotScript(*script, dir + "/fig10.csv", dir, "demo", "fig10.png", kPython);
  ASSERT_TRUE(png.ok()) << png.status();
  EXPECT_EQ(*png, "fig10.png");
  EXPECT_GT(std::filesystem::file_size(dir + "/fig10.png"), 5000u);
  // A row whose throughput is not a number: the script names the line.
  ASSERT_TRUE(support::WriteFileAtomically(dir + "/bad.csv",
                                           "layer,hiding,ops_per_byte,gops,peak_gops,gbytes_per_s\n"
                                           "C2,off,174.8,fast,102.4,3.2\n")
                  .ok());
  png = RunRooflinePlotScript(*script, dir + "/bad.csv", dir, "", "bad.png", kPython);
  ASSERT_FALSE(png.ok());
  EXPECT_NE(png.status().message().find("bad.csv:2"), std::string::npos) << png.status();
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.png"));
}

TEST(PlotTest, MissingPythonIsAnError) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      RunPlotScript("plot.py", "x.csv", TmpDir("none"), "", {}, "/nonexistent/python3");
  ASSERT_FALSE(plots.ok());
  EXPECT_NE(plots.status().message().find("/nonexistent/python3"), std::string::npos)
      << plots.status();
}

}  // namespace
}  // namespace tessel::experiments
