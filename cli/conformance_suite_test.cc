// `tessel conformance` over the ONNX suite in ../shared/conformance (the @conformance
// repository): every case either passes or is reported unsupported; none fails. The light
// networks the frontend supports (ResNet-50, SqueezeNet, VGG-19) must pass.
#include <absl/strings/match.h>
#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_tessel_for_test.h"

namespace tessel::cli {
namespace {

using ::testing::HasSubstr;

class ConformanceSuiteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceSuiteTest, NoCaseFails) {
  Outcome o = RunTessel({"conformance", "external/conformance/onnx/" + GetParam()});
  ASSERT_FALSE(o.out.empty()) << o.err;
  std::vector<std::string> lines = absl::StrSplit(o.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 2u);
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_TRUE(lines[i].ends_with(": passed") || absl::StrContains(lines[i], ": unsupported: "))
        << lines[i];
  }
  EXPECT_THAT(lines.back(), HasSubstr(" passed, "));
  std::cout << lines.back() << "\n";
  if (GetParam() == "light") {
    for (const char* net :
         {"light_resnet50: passed", "light_squeezenet: passed", "light_vgg19: passed"}) {
      EXPECT_THAT(o.out, HasSubstr(net));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Suites, ConformanceSuiteTest,
                         ::testing::Values("light", "pytorch-converted", "pytorch-operator"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace tessel::cli
