// The registry and the params contract every explorer shares.

#include "search/explorers/explorer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/explorers/test_space.h"

namespace tessel::search {
namespace {

using testing::MakeTestSpace;

TEST(ExplorerRegistry, KnowsEveryExplorerInOrder) {
  EXPECT_EQ(ExplorerNames(), (std::vector<std::string>{"ga", "grid", "random", "sa"}));
  const ConfigSpace space = MakeTestSpace();
  for (const std::string& name : ExplorerNames()) {
    absl::StatusOr<std::unique_ptr<Explorer>> explorer = MakeExplorer(name, space, {.seed = 1});
    ASSERT_TRUE(explorer.ok()) << name << ": " << explorer.status();
    EXPECT_EQ((*explorer)->name(), name);
    EXPECT_EQ((*explorer)->model_guided(), name == "sa") << name;
  }
}

TEST(ExplorerRegistry, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<std::unique_ptr<Explorer>> explorer = MakeExplorer("anneal", MakeTestSpace(), {});
  ASSERT_FALSE(explorer.ok());
  EXPECT_EQ(explorer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(explorer.status().message().find("'anneal'"), std::string::npos);
  EXPECT_NE(explorer.status().message().find("ga, grid, random, sa"), std::string::npos)
      << explorer.status();
}

struct BadParams {
  std::string explorer;
  nlohmann::json params;
  std::string key;  // the message must name it
};

TEST(ExplorerRegistry, BadParamsNameTheKey) {
  const std::vector<BadParams> cases = {
      {"sa", {{"parallel_sizes", 64}}, "'parallel_sizes'"},
      {"sa", {{"n_iter", "many"}}, "'n_iter'"},
      {"sa", {{"n_iter", 2.5}}, "'n_iter'"},
      {"sa", {{"parallel_size", 0}}, "'parallel_size'"},
      {"sa", {{"early_stop", 10000000000}}, "'early_stop'"},
      {"sa", {{"temperature_start", -1}}, "'temperature_start'"},
      {"sa", {{"temperature_end", true}}, "'temperature_end'"},
      {"ga", {{"pop", 10}}, "'pop'"},
      {"ga", {{"pop_size", -3}}, "'pop_size'"},
      {"ga", {{"elite_num", "3"}}, "'elite_num'"},
      {"ga", {{"mutation_prob", 1.5}}, "'mutation_prob'"},
      {"random", {{"seed", 1}}, "'seed'"},
      {"grid", {{"order", "reverse"}}, "'order'"},
  };
  const ConfigSpace space = MakeTestSpace();
  for (const BadParams& c : cases) {
    absl::StatusOr<std::unique_ptr<Explorer>> explorer =
        MakeExplorer(c.explorer, space, {.params = c.params});
    ASSERT_FALSE(explorer.ok()) << c.explorer << " " << c.params.dump();
    EXPECT_EQ(explorer.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(explorer.status().message().find(c.key), std::string::npos) << explorer.status();
    EXPECT_NE(explorer.status().message().find("'" + c.explorer + "'"), std::string::npos)
        << explorer.status();
  }
}

TEST(ExplorerRegistry, ParamsMustBeAnObject) {
  absl::StatusOr<std::unique_ptr<Explorer>> explorer =
      MakeExplorer("sa", MakeTestSpace(), {.params = nlohmann::json::array({1, 2})});
  ASSERT_FALSE(explorer.ok());
  EXPECT_NE(explorer.status().message().find("JSON object"), std::string::npos)
      << explorer.status();
}

TEST(ExplorerRegistry, UnknownKeyErrorListsTheKnownKeys) {
  absl::StatusOr<std::unique_ptr<Explorer>> explorer =
      MakeExplorer("ga", MakeTestSpace(), {.params = {{"population", 50}}});
  ASSERT_FALSE(explorer.ok());
  EXPECT_NE(explorer.status().message().find("elite_num, mutation_prob, pop_size"),
            std::string::npos)
      << explorer.status();
}

}  // namespace
}  // namespace tessel::search
