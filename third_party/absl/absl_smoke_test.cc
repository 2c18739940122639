// Abseil: flags parse from an argv, Status and StatusOr carry errors, strings format.
#include <absl/container/flat_hash_map.h>
#include <absl/flags/flag.h>
#include <absl/flags/parse.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

ABSL_FLAG(int, trials, 10, "number of trials");
ABSL_FLAG(std::string, tuner, "xgb", "cost model name");

namespace {

absl::StatusOr<int> ParsePositive(int value) {
  if (value <= 0)
    return absl::InvalidArgumentError(absl::StrCat("expected a positive value, got ", value));
  return value;
}

TEST(AbslSmokeTest, FlagsParseFromArgv) {
  std::vector<std::string> args = {"prog", "--trials=64", "--tuner=random", "positional"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::vector<char*> rest = absl::ParseCommandLine(static_cast<int>(argv.size()), argv.data());
  EXPECT_EQ(absl::GetFlag(FLAGS_trials), 64);
  EXPECT_EQ(absl::GetFlag(FLAGS_tuner), "random");
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_STREQ(rest[1], "positional");
}

TEST(AbslSmokeTest, StatusOrCarriesValueOrError) {
  absl::StatusOr<int> ok = ParsePositive(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  absl::StatusOr<int> bad = ParsePositive(-2);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "expected a positive value, got -2");
}

TEST(AbslSmokeTest, StringsAndHashMaps) {
  absl::flat_hash_map<std::string, double> gflops;
  gflops[absl::StrFormat("C%d", 1)] = 12.5;
  gflops["C2"] = 3.25;
  EXPECT_EQ(absl::StrFormat("%s=%.2f", "C1", gflops.at("C1")), "C1=12.50");
  EXPECT_EQ(gflops.size(), 2u);
}

}  // namespace
