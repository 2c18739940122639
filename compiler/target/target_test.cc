#include "compiler/target/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::target {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Target MustParse(std::string_view text) {
  absl::StatusOr<Target> t = Target::Parse(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status();
  return t.ok() ? *t : Target();
}

std::string ParseError(std::string_view text) {
  absl::StatusOr<Target> t = Target::Parse(text);
  EXPECT_FALSE(t.ok()) << text << " parsed as " << t->ToString();
  return std::string(t.status().message());
}

TEST(TargetTest, LlvmStringsKeepTheirMeaning) {
  const Target t = MustParse("llvm  -mcpu=znver3 -mattr=+avx2,+fma -fast-math-contract");
  EXPECT_EQ(t.kind(), "llvm");
  EXPECT_EQ(t.Option("mcpu"), "znver3");
  EXPECT_TRUE(t.HasFlag("fast-math-contract"));
  EXPECT_FALSE(t.HasFlag("fast-math"));
  EXPECT_EQ(t.ToString(), "llvm -mcpu=znver3 -mattr=+avx2,+fma -fast-math-contract");
  EXPECT_THAT(t.keys(), ElementsAre("cpu"));
  EXPECT_FALSE(t.is_device());
  EXPECT_EQ(t.host().ToString(), t.ToString());
}

TEST(TargetTest, KeysSayWhatTheTargetIs) {
  EXPECT_THAT(MustParse("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a53").keys(),
              ElementsAre("arm_cpu", "cpu"));
  EXPECT_THAT(MustParse("cuda -arch=sm_90").keys(), ElementsAre("cuda", "gpu"));
  EXPECT_THAT(MustParse("opencl").keys(), ElementsAre("opencl", "gpu"));
  EXPECT_THAT(MustParse("opencl -device=mali").keys(), ElementsAre("mali", "opencl", "gpu"));
  EXPECT_THAT(MustParse("vdla -config=hardware/vdla/default.json").keys(), ElementsAre("vdla"));
  EXPECT_TRUE(MustParse("opencl -device=mali").HasKey("gpu"));
  EXPECT_FALSE(MustParse("cuda").HasKey("cpu"));
}

TEST(TargetTest, DeviceTargetsCarryTheirHost) {
  const Target cuda = MustParse("cuda -arch=sm_90");
  EXPECT_TRUE(cuda.is_device());
  EXPECT_EQ(cuda.host().ToString(), "llvm");
  const Target mali = MustParse("opencl -device=mali -host='llvm -mtriple=aarch64-linux-gnu'");
  EXPECT_EQ(mali.host().ToString(), "llvm -mtriple=aarch64-linux-gnu");
  EXPECT_THAT(mali.host().keys(), ElementsAre("arm_cpu", "cpu"));
  // A quoted value round-trips.
  EXPECT_EQ(mali.ToString(), "opencl -device=mali -host='llvm -mtriple=aarch64-linux-gnu'");
  EXPECT_EQ(MustParse(mali.ToString()).ToString(), mali.ToString());
}

TEST(TargetTest, ErrorsNameTheWordAndWhy) {
  EXPECT_THAT(ParseError("rocm"),
              HasSubstr("unknown kind 'rocm' (known: cuda, llvm, opencl, vdla)"));
  EXPECT_THAT(ParseError("cuda -arch=90"), HasSubstr("option '-arch=90' must be sm_"));
  EXPECT_THAT(ParseError("cuda -mcpu=native"), HasSubstr("is not known for kind 'cuda'"));
  EXPECT_THAT(ParseError("opencl -device=adreno"), HasSubstr("must be mali"));
  EXPECT_THAT(ParseError("cuda -host=cuda"), HasSubstr("must be an llvm target, not cuda"));
  EXPECT_THAT(ParseError("cuda -host='llvm -bogus'"), HasSubstr("is not a target"));
  EXPECT_THAT(ParseError("llvm -host=llvm"), HasSubstr("is not known for kind 'llvm'"));
  EXPECT_THAT(ParseError("cuda -host='llvm"), HasSubstr("a quote (') is not closed"));
  EXPECT_THAT(ParseError("llvm -mcpu"), HasSubstr("needs a value"));
  EXPECT_THAT(ParseError("llvm -mcpu=a -mcpu=b"), HasSubstr("is given twice"));
  EXPECT_THAT(ParseError("llvm mcpu=a"), HasSubstr("does not start with '-'"));
  EXPECT_THAT(ParseError("llvm -mcpu="), HasSubstr("has an empty value"));
  EXPECT_THAT(ParseError("  "), HasSubstr("empty target string"));
}

// The kinds and options target.h documents, written out here rather than read back from the table.
TEST(TargetTest, KindInfosListEveryKindsOptions) {
  std::vector<std::string> names;
  for (const KindInfo& k : Target::KindInfos()) {
    names.push_back(k.name);
    EXPECT_EQ(k.device, k.name != "llvm") << k.name;
    if (k.name == "llvm") {
      EXPECT_THAT(k.options, ElementsAre("mtriple", "mcpu", "mattr", "opt-level", "num-cores"));
      EXPECT_THAT(k.flags, ElementsAre("fast-math", "fast-math-contract"));
    } else if (k.name == "cuda") {
      EXPECT_THAT(k.options, ElementsAre("arch", "host"));
      EXPECT_THAT(k.flags, ElementsAre("fast-math-contract"));
    } else {
      EXPECT_THAT(k.options, ::testing::Contains("host")) << k.name;
    }
  }
  EXPECT_THAT(names, ElementsAre("cuda", "llvm", "opencl", "vdla"));
}

}  // namespace
}  // namespace tessel::target
