#pragma once

#include <absl/status/status.h>

#include <string>
#include <vector>

#include "compiler/codegen/interp/interp.h"
#include "compiler/ir/stmt.h"
#include "compiler/target/target.h"

// One test body, several backends: tests written against the reference interpreter run the same
// lowered function through the LLVM backend too (gtest value parameters over Backend).
namespace tessel::testing {

enum class Backend { kInterp, kLlvm };

// Both backends, for INSTANTIATE_TEST_SUITE_P.
std::vector<Backend> AllBackends();
// "interp", "llvm": names for parameterized test instances.
std::string BackendName(Backend backend);
// For gtest's name generator.
struct BackendParamName {
  template <class ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return BackendName(info.param);
  }
};

// The LLVM target the tests compile for: this host, strict IEEE float.
inline const target::Target kTestLlvmTarget = target::Target::Llvm().WithOption("mcpu", "native");

// Runs func once on args with backend (the interpreter's argument convention); compile and run
// errors come back as the status.
absl::Status RunOn(Backend backend, const ir::PrimFunc& func, const std::vector<interp::Arg>& args);

}  // namespace tessel::testing
