// yaml-cpp: an experiment-shaped document is emitted, parsed back and compared field by field;
// malformed YAML is reported with its line.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace {

TEST(YamlCppSmokeTest, EmitThenParseRoundTrip) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "fig12_cpu";
  out << YAML::Key << "trials" << YAML::Value << 800;
  out << YAML::Key << "strategies" << YAML::Value << YAML::Flow
      << std::vector<std::string>{"xgb+sa", "ga", "random"};
  out << YAML::Key << "threshold" << YAML::Value << 0.05;
  out << YAML::EndMap;
  ASSERT_TRUE(out.good()) << out.GetLastError();

  YAML::Node doc = YAML::Load(out.c_str());
  EXPECT_EQ(doc["name"].as<std::string>(), "fig12_cpu");
  EXPECT_EQ(doc["trials"].as<int>(), 800);
  EXPECT_EQ(doc["strategies"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"xgb+sa", "ga", "random"}));
  EXPECT_DOUBLE_EQ(doc["threshold"].as<double>(), 0.05);
  EXPECT_FALSE(doc["missing"].IsDefined());
}

TEST(YamlCppSmokeTest, MalformedInputNamesTheLine) {
  try {
    YAML::Load("name: a\ntrials: [1, 2\n");
    FAIL() << "malformed YAML was accepted";
  } catch (const YAML::ParserException& e) {
    EXPECT_GE(e.mark.line, 1);
  }
}

}  // namespace
