// nlohmann-json: a tuning-record-shaped object survives dump and parse; bad JSON is refused with
// the byte where parsing stopped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

TEST(NlohmannJsonSmokeTest, RecordRoundTrip) {
  nlohmann::json record = {
      {"task", {{"template", "conv2d_nchwc.x86"}, {"args", {1, 64, 56, 56}}}},
      {"config", {{"tile_oc", 16}, {"unroll_kw", true}}},
      {"result", {{"costs", {1.25e-3, 1.5e-3}}, {"error", nullptr}}},
      {"version", 1},
  };
  const std::string line = record.dump();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  nlohmann::json back = nlohmann::json::parse(line);
  EXPECT_EQ(back, record);
  EXPECT_EQ(back["task"]["args"].get<std::vector<int>>(), (std::vector<int>{1, 64, 56, 56}));
  EXPECT_DOUBLE_EQ(back["result"]["costs"][1].get<double>(), 1.5e-3);
  EXPECT_TRUE(back["result"]["error"].is_null());
}

TEST(NlohmannJsonSmokeTest, TruncatedLineIsRefused) {
  try {
    nlohmann::json parsed = nlohmann::json::parse(R"({"task": {"args": [1, 2)");
    FAIL() << "truncated JSON was accepted as " << parsed.dump();
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_GT(e.byte, 20u);
  }
}

}  // namespace
