// `tessel experiment`: its command-line mistakes, shipped config names, and a tiny run printing
// the summary table.
#include "cli/experiment_command.h"

#include <absl/status/status.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessel::cli {
namespace {

absl::Status Command(std::vector<std::string> args, std::ostream& out) {
  return ExperimentCommand(std::span<const std::string>(args), out);
}

std::string Tmp(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(ExperimentCommandTest, NeedsAConfig) {
  std::ostringstream out;
  absl::Status status = Command({}, out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find("needs a config"), std::string::npos) << status;
  status = Command({"--out", "x"}, out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
}

TEST(ExperimentCommandTest, UnknownFlagIsNamed) {
  std::ostringstream out;
  const absl::Status status = Command({"quickstart", "--trials", "3"}, out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find("--trials"), std::string::npos) << status;
}

TEST(ExperimentCommandTest, MissingConfigIsNamed) {
  std::ostringstream out;
  const absl::Status status = Command({"no_such_experiment"}, out);
  EXPECT_TRUE(absl::IsNotFound(status)) << status;
  EXPECT_NE(status.message().find("no_such_experiment"), std::string::npos) << status;
}

TEST(ExperimentCommandTest, BadConfigNamesLineAndKey) {
  const std::string path = Tmp("bad.yaml");
  Write(path, "name: b\ntrials: 4\nworkloads: [C6]\nstrategies:\n  - {name: s, explorer: tabu}\n");
  std::ostringstream out;
  const absl::Status status = Command({path}, out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find(path + ":5: strategies[0].explorer: unknown explorer 'tabu'"),
            std::string::npos)
      << status;
}

TEST(ExperimentCommandTest, TinyRunPrintsTheTable) {
  const std::string path = Tmp("tiny.yaml");
  Write(path,
        "name: tiny\ntrials: 4\nworkloads:\n  - name: small\n    template: conv2d_nchwc.x86\n"
        "    args: {n: 1, ic: 4, h: 6, w: 6, oc: 16, kh: 3, kw: 3, pad: [1, 1, 1, 1]}\n"
        "strategies:\n  - {name: random, explorer: random}\n"
        "measure: {repeat: 1, min_repeat_ms: 0}\n");
  std::ostringstream out;
  const std::string dir = Tmp("tiny_out");
  const absl::Status status = Command({path, "--out", dir}, out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_NE(out.str().find("small (conv2d_nchwc.x86)"), std::string::npos) << out.str();
  EXPECT_NE(
      out.str().find("1 runs (1 tuned now, 0 finished before); results in " + dir + "/summary.md"),
      std::string::npos)
      << out.str();
  EXPECT_TRUE(std::filesystem::exists(dir + "/summary.csv"));
}

TEST(ExperimentCommandTest, UnknownKindIsNamed) {
  const std::string path = Tmp("kind.yaml");
  Write(path, "kind: sweep\nname: k\n");
  std::ostringstream out;
  const absl::Status status = Command({path}, out);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find(path + ":1: kind: unknown experiment kind 'sweep'"),
            std::string::npos)
      << status;
}

TEST(ExperimentCommandTest, TinyModelsRunPrintsTheTable) {
  const std::string path = Tmp("models.yaml");
  Write(path,
        "kind: models\nname: cells\nrepeat: 5\nwarmup: 1\nmin_repeat_ms: 1\n"
        "networks: [rnn_cell]\nvariants:\n  - {name: no_fusion, fuse: false}\n"
        "  - {name: fusion}\n");
  std::ostringstream out;
  const std::string dir = Tmp("models_out");
  const absl::Status status = Command({path, "--out", dir}, out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_NE(out.str().find("rnn_cell           fusion"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 networks x 2 variants; results in " + dir + "/summary.md"),
            std::string::npos)
      << out.str();
  EXPECT_TRUE(std::filesystem::exists(dir + "/times.csv"));
}

}  // namespace
}  // namespace tessel::cli
