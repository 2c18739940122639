#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <string>

#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"

// Checks schedule templates against libtorch: instantiate a config, compile it for the host, run
// it on seeded random logical inputs (through the program's prepare/finish) and compare every
// logical output with baselines::TorchReference.
namespace tessel::ops::testing {

// The runner's helpers, under the names the tests use.
using ops::AllocateOutputs;
using ops::CompileProgram;
using ops::RandomInputs;
using ops::RunLogical;

struct CheckOptions {
  // |ours - reference| <= atol + rtol * |reference|, elementwise (integer outputs: exact).
  double atol = 1e-3;
  double rtol = 1e-3;
  uint32_t seed = 1;
  // The tests' target: this host, strict IEEE unless a test asks for contraction.
  std::string target = "llvm -mcpu=native";
};

// got against want with options' tolerances.
absl::Status CompareOutputs(const std::vector<runtime::NDArray>& got,
                            const std::vector<runtime::NDArray>& want, const CheckOptions& options);

// One config of template t on args, against libtorch.
absl::Status CheckConfig(const Template& t, const OpArgs& args, const search::Config& config,
                         const CheckOptions& options = {});
// The fallback config.
absl::Status CheckFallback(const Template& t, const OpArgs& args, const CheckOptions& options = {});
// Calls check on the fallback config, then on n distinct random valid configs (fewer if the space
// is smaller), drawn with options.seed; returns the first failure.
absl::Status ForFallbackAndRandomConfigs(
    const Template& t, const OpArgs& args, int n, const CheckOptions& options,
    const std::function<absl::Status(const search::Config&)>& check);
// n distinct random valid configs (fewer if the space is smaller), plus the fallback; the first
// failure names the config.
absl::Status CheckRandomConfigs(const Template& t, const OpArgs& args, int n,
                                const CheckOptions& options = {});

}  // namespace tessel::ops::testing
