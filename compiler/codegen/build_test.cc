#include "compiler/codegen/build.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessel::codegen {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(BuildTest, TheLlvmBackendIsRegistered) { EXPECT_THAT(BackendKinds(), Contains("llvm")); }

// A kind that parses but has no backend here is refused by name, with the kinds that have one.
TEST(BuildTest, AKindWithoutABackendIsNamed) {
  absl::StatusOr<runtime::Module> m = Build({}, *target::Target::Parse("cuda -arch=sm_90"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("target 'cuda -arch=sm_90': kind 'cuda' has no backend in this build "
                        "(backends: llvm)"));
}

// A target the LLVM backend cannot resolve is refused by name.
TEST(BuildTest, AnUnknownCpuIsNamed) {
  absl::StatusOr<runtime::Module> m = Build({}, *target::Target::Parse("llvm -mcpu=nosuchcpu"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("nosuchcpu"));
}

}  // namespace
}  // namespace tessel::codegen
