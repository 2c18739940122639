#include "compiler/codegen/build.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::codegen {
namespace {

using ::testing::HasSubstr;

TEST(BuildTest, TheBackendsAreRegistered) {
  EXPECT_EQ(BackendKinds(), (std::vector<std::string>{"cuda", "llvm", "opencl"}));
}

// A kind that parses but has no backend here is refused by name, with the kinds that have one.
TEST(BuildTest, AKindWithoutABackendIsNamed) {
  absl::StatusOr<runtime::Module> m = Build({}, *target::Target::Parse("vdla"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("target 'vdla': kind 'vdla' has no backend in this build (backends: "
                        "cuda, llvm, opencl)"));
}

// A target the LLVM backend cannot resolve is refused by name.
TEST(BuildTest, AnUnknownCpuIsNamed) {
  absl::StatusOr<runtime::Module> m = Build({}, *target::Target::Parse("llvm -mcpu=nosuchcpu"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("nosuchcpu"));
}

}  // namespace
}  // namespace tessel::codegen
