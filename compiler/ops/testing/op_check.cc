#include "compiler/ops/testing/op_check.h"

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "baselines/torch/reference.h"
#include "compiler/codegen/build.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::testing {

CheckOptions WithTolerance(double tolerance) {
  CheckOptions o;
  o.atol = tolerance;
  o.rtol = tolerance;
  return o;
}

const Template& GetTemplate(const std::string& name) {
  absl::StatusOr<const Template*> t = FindTemplate(name);
  if (!t.ok()) {
    ADD_FAILURE() << t.status();
    std::abort();
  }
  return **t;
}

absl::Status CompareOutputs(const std::vector<runtime::NDArray>& got,
                            const std::vector<runtime::NDArray>& want,
                            const CheckOptions& options) {
  return ops::CompareOutputs(got, want, Tolerance{options.atol, options.rtol});
}

std::string NotRunHere(const target::Target& target) {
  std::string why = tessel::testing::WhyNotRunnable(target);
  if (!why.empty()) {
    ::testing::Test::RecordProperty("not_run", absl::StrCat("compiled and assembled only: ", why));
  }
  return why;
}

absl::StatusOr<std::optional<runtime::Function>> CompileToCheck(const OpProgram& program,
                                                                const target::Target& target) {
  // One build either way: the module holds the assembled object before any function is asked for.
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                          transforms::Lower(program.schedule, program.args, "op"));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module module, codegen::Build({func}, target));
  if (!NotRunHere(target).empty()) return std::optional<runtime::Function>();
  TESSEL_ASSIGN_OR_RETURN(runtime::Function f, module.GetFunction("op"));
  return std::optional<runtime::Function>(std::move(f));
}

namespace {

// program, compiled as f, run on the logical inputs drawn with options.seed.
absl::StatusOr<ConfigRun> RunProgram(const OpProgram& program, const runtime::Function& f,
                                     const CheckOptions& options) {
  ConfigRun run;
  run.inputs = RandomInputs(program.logical_inputs, options.seed);
  TESSEL_ASSIGN_OR_RETURN(run.outputs,
                          RunLogical(program, f, run.inputs, target::TargetDevice(options.target)));
  return run;
}

}  // namespace

absl::StatusOr<std::optional<ConfigRun>> RunConfig(const Template& t, const OpArgs& args,
                                                   const search::Config& config,
                                                   const CheckOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  TESSEL_ASSIGN_OR_RETURN(OpProgram program, t.instantiate(config, args, facts));
  TESSEL_ASSIGN_OR_RETURN(std::optional<runtime::Function> f,
                          CompileToCheck(program, options.target));
  if (!f) return std::nullopt;
  return RunProgram(program, *f, options);
}

absl::StatusOr<std::optional<ConfigRun>> RunFallback(const Template& t, const OpArgs& args,
                                                     const CheckOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t.space(args, facts));
  return RunConfig(t, args, t.fallback(space, args, facts), options);
}

absl::Status MatchesReference(const std::string& op, const OpArgs& args, const ConfigRun& run,
                              size_t num_inputs, const CheckOptions& options) {
  const size_t n = std::min(num_inputs, run.inputs.size());
  TESSEL_ASSIGN_OR_RETURN(
      const std::vector<runtime::NDArray> want,
      baselines::TorchReference(op, args, {run.inputs.begin(), run.inputs.begin() + n}));
  return CompareOutputs(run.outputs, want, options);
}

namespace {

// s, naming the template, the args and the config.
absl::Status ForConfig(const Template& t, const OpArgs& args, const search::Config& config,
                       const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(t.name, " ", args.dump(), " config ",
                                             config.ToString(), ": ", s.message()));
}

// The fallback config, then n distinct random valid ones (see ForFallbackAndRandomConfigs).
absl::StatusOr<std::vector<search::Config>> FallbackAndRandomConfigs(const Template& t,
                                                                     const OpArgs& args, int n,
                                                                     const CheckOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t.space(args, facts));
  std::mt19937_64 rng(options.seed);
  std::vector<search::Config> configs = {t.fallback(space, args, facts)};
  if (!NotRunHere(options.target).empty()) n = std::min(n, kCompileOnlyRandomConfigs);
  for (search::Config& c : space.SampleUnique(n, rng, {configs[0].index()})) {
    configs.push_back(std::move(c));
  }
  return configs;
}

}  // namespace

absl::Status CheckConfig(const Template& t, const OpArgs& args, const search::Config& config,
                         const CheckOptions& options) {
  return ForConfig(t, args, config, [&]() -> absl::Status {
    TESSEL_ASSIGN_OR_RETURN(std::optional<ConfigRun> run, RunConfig(t, args, config, options));
    return run ? MatchesReference(t.op, args, *run, SIZE_MAX, options) : absl::OkStatus();
  }());
}

absl::Status CheckFallback(const Template& t, const OpArgs& args, const CheckOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t.space(args, facts));
  return CheckConfig(t, args, t.fallback(space, args, facts), options);
}

absl::Status ForFallbackAndRandomConfigs(
    const Template& t, const OpArgs& args, int n, const CheckOptions& options,
    const std::function<absl::Status(const search::Config&)>& check) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Config> configs,
                          FallbackAndRandomConfigs(t, args, n, options));
  for (const search::Config& c : configs) TESSEL_RETURN_IF_ERROR(check(c));
  return absl::OkStatus();
}

absl::Status CheckRandomConfigs(const Template& t, const OpArgs& args, int n,
                                const CheckOptions& options) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Config> configs,
                          FallbackAndRandomConfigs(t, args, n, options));
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(options.target));
  // One module for every config, as functions op_0, op_1, ...: a GPU compiler's cost is mostly
  // per program (PoCL parses its 18,000 lines of OpenCL headers for each; NVRTC its own).
  std::vector<OpProgram> programs;
  std::vector<ir::PrimFunc> funcs;
  auto name = [](size_t i) { return absl::StrCat("op_", i); };
  for (size_t i = 0; i < configs.size(); ++i) {
    TESSEL_RETURN_IF_ERROR(ForConfig(t, args, configs[i], [&]() -> absl::Status {
      TESSEL_ASSIGN_OR_RETURN(OpProgram program, t.instantiate(configs[i], args, facts));
      TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                              transforms::Lower(program.schedule, program.args, name(i)));
      programs.push_back(std::move(program));
      funcs.push_back(std::move(func));
      return absl::OkStatus();
    }()));
  }
  absl::StatusOr<runtime::Module> module = codegen::Build(funcs, options.target);
  if (!module.ok()) {
    // The config that does not build, built alone.
    for (const search::Config& c : configs) {
      TESSEL_RETURN_IF_ERROR(CheckConfig(t, args, c, options));
    }
    return absl::Status(module.status().code(),
                        absl::StrCat(t.name, " ", args.dump(), ": ", configs.size(),
                                     " configs in one module: ", module.status().message()));
  }
  if (!NotRunHere(options.target).empty()) return absl::OkStatus();
  for (size_t i = 0; i < configs.size(); ++i) {
    TESSEL_RETURN_IF_ERROR(ForConfig(t, args, configs[i], [&]() -> absl::Status {
      TESSEL_ASSIGN_OR_RETURN(runtime::Function f, module->GetFunction(name(i)));
      TESSEL_ASSIGN_OR_RETURN(ConfigRun run, RunProgram(programs[i], f, options));
      return MatchesReference(t.op, args, run, SIZE_MAX, options);
    }()));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ops::testing
