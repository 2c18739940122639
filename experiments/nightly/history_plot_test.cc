// plot_history.py on a history of 4 runs: one PNG per figure family, named on its output; a bad
// history is an error that names its line.
#include "experiments/nightly/history_plot.h"

#include <absl/strings/str_format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compiler/support/atomic_file.h"
#include "experiments/nightly/record.h"
#include "experiments/nightly/test_records.h"
#include "experiments/test_files.h"

namespace tessel::experiments::nightly {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

bool HasMatplotlib() {
  return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

Figure Fig(const std::string& name, const std::string& family, const std::string& unit,
           double value) {
  return testing::TestFigure(name, family, unit, unit == "x", value);
}

Record Night(int i) {
  Record r = testing::TestRecord(absl::StrFormat("c%d0ffee", i),
                                 absl::StrFormat("2024-05-0%dT02:00:00Z", i + 1));
  r.figures = {Fig("network/resnet18", "networks", "x", 2.0 - 0.1 * i),
               Fig("network/dqn", "networks", "x", 0.9 + 0.05 * i),
               Fig("gemm_1024", "gemm", "x", 1.3),
               Fig("compile/resnet18", "compile time", "s", 12.0 + i)};
  if (i == 2) r.figures.pop_back();  // not measured that night: a gap
  return r;
}

TEST(HistoryPlotTest, WritesOnePngPerFamily) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindHistoryPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = testing::TestOutDir("history_plot");
  const std::string history = dir + "/history.jsonl";
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(AppendHistory(history, Night(i)).ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      PlotHistory(*script, history, dir + "/trends", "quick on znver3", kPython);
  ASSERT_TRUE(plots.ok()) << plots.status();
  using Plot = std::pair<std::string, std::string>;
  EXPECT_EQ(*plots, (std::vector<Plot>{{"networks", "networks.png"},
                                       {"gemm", "gemm.png"},
                                       {"compile_time", "compile_time.png"}}));
  for (const auto& [family, png] : *plots) {
    const std::string path = dir + "/trends/" + png;
    std::ifstream file(path, std::ios::binary);
    char magic[8] = {};
    file.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << png;
    EXPECT_GT(std::filesystem::file_size(path), 5000u) << png;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/trends")) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST(HistoryPlotTest, ABadHistoryNamesItsLine) {
  if (!HasMatplotlib()) GTEST_SKIP() << "matplotlib is missing: apt-get install python3-matplotlib";
  absl::StatusOr<std::string> script = FindHistoryPlotScript();
  ASSERT_TRUE(script.ok()) << script.status();
  const std::string dir = testing::TestOutDir("history_plot_bad");
  const std::string history = dir + "/history.jsonl";
  ASSERT_TRUE(AppendHistory(history, Night(0)).ok());
  ASSERT_TRUE(
      support::WriteFileAtomically(history, testing::ReadFile(history) + "{\"commit\": \"abc\"}\n")
          .ok());
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> plots =
      PlotHistory(*script, history, dir, "", kPython);
  ASSERT_FALSE(plots.ok());
  EXPECT_EQ(plots.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(plots.status().message().find(history + ":2: no 'figures'"), std::string::npos)
      << plots.status();
}

}  // namespace
}  // namespace tessel::experiments::nightly
