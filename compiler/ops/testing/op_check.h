#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "compiler/ops/op_runner.h"
#include "compiler/ops/template.h"
#include "compiler/testing/test_target.h"

// Checks schedule templates against libtorch: instantiate a config, compile it for the test
// target (compiler/testing/test_target.h: this host, or the other vector width), run it on seeded
// random logical inputs (through the program's prepare/finish) and compare every logical output
// with baselines::TorchReference. For a target this CPU cannot run (AVX-512 on an AVX2 machine)
// a check stops after compiling and assembling, and records the gtest property `not_run` with
// the reason, which `./tessel test` reports.
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
  // The tests' target: testing::TestTarget(), strict IEEE unless a test asks for contraction.
  target::Target target = tessel::testing::TestTarget();
};

// Options with atol = rtol = tolerance, for outputs summed over long enough reductions that float32
// rounding passes the default.
CheckOptions WithTolerance(double tolerance);

// The registered template `name`; a test failure when there is none (then it aborts).
const Template& GetTemplate(const std::string& name);

// got against want with options' tolerances.
absl::Status CompareOutputs(const std::vector<runtime::NDArray>& got,
                            const std::vector<runtime::NDArray>& want, const CheckOptions& options);

// Empty when code for target runs here; otherwise the reason, recorded as the current test's
// `not_run` property (the caller then compiles without running).
std::string NotRunHere(const target::Target& target);

// Compiles program for target as function "op". Where code for target cannot run on this CPU
// (NotRunHere), it is compiled and assembled all the same, and nullopt comes back: a check
// stops there.
absl::StatusOr<std::optional<runtime::Function>> CompileToCheck(const OpProgram& program,
                                                                const target::Target& target);

// One config of template t on args run on the logical inputs drawn with options.seed: the inputs
// and the outputs; nullopt where the code cannot run here (as CompileToCheck). Errors name the
// template, the args and the config.
struct ConfigRun {
  std::vector<runtime::NDArray> inputs, outputs;
};
absl::StatusOr<std::optional<ConfigRun>> RunConfig(const Template& t, const OpArgs& args,
                                                   const search::Config& config,
                                                   const CheckOptions& options = {});
// RunConfig of the fallback config.
absl::StatusOr<std::optional<ConfigRun>> RunFallback(const Template& t, const OpArgs& args,
                                                     const CheckOptions& options = {});

// Whether run's outputs are libtorch's for operator `op` with `args` on the first `num_inputs` of
// run's inputs (all by default), with options' tolerances: another op's arguments (a shift, a
// flag) than those run had must fail it.
absl::Status MatchesReference(const std::string& op, const OpArgs& args, const ConfigRun& run,
                              size_t num_inputs = SIZE_MAX, const CheckOptions& options = {});

// One config of template t on args, against libtorch.
absl::Status CheckConfig(const Template& t, const OpArgs& args, const search::Config& config,
                         const CheckOptions& options = {});
// The fallback config.
absl::Status CheckFallback(const Template& t, const OpArgs& args, const CheckOptions& options = {});
// Calls check on the fallback config, then on n distinct random valid configs (fewer if the space
// is smaller), drawn with options.seed; returns the first failure. Where options.target cannot
// run here (NotRunHere), at most kCompileOnlyRandomConfigs of them: a sweep of random configs is
// there to catch wrong answers, which code that is only compiled cannot give, and the same
// templates' sweeps run in full for a target that runs (the host's width, OpenCL on PoCL).
inline constexpr int kCompileOnlyRandomConfigs = 4;
absl::Status ForFallbackAndRandomConfigs(
    const Template& t, const OpArgs& args, int n, const CheckOptions& options,
    const std::function<absl::Status(const search::Config&)>& check);
// n distinct random valid configs (fewer if the space is smaller), plus the fallback, built as
// one module (a GPU compiler's cost is mostly per program); the first failure names the config
// (where the module does not build, each config is then checked alone).
absl::Status CheckRandomConfigs(const Template& t, const OpArgs& args, int n,
                                const CheckOptions& options = {});

}  // namespace tessel::ops::testing
