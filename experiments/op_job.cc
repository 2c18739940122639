#include "experiments/op_job.h"

#include <chrono>
#include <cstdlib>

#include "compiler/ops/op_runner.h"
#include "compiler/support/status_macros.h"

namespace tessel::experiments {

absl::StatusOr<OpJob> OpJob::Create(const ops::Template& t, const ops::OpArgs& args,
                                    const target::TargetFacts& facts, uint32_t seed,
                                    const search::Config* config) {
  OpJob job;
  const auto start = std::chrono::steady_clock::now();
  TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t.space(args, facts));
  const search::Config chosen = config != nullptr ? *config : t.fallback(space, args, facts);
  job.config_text_ = chosen.ToString();
  TESSEL_ASSIGN_OR_RETURN(job.program_, t.instantiate(chosen, args, facts));
  TESSEL_ASSIGN_OR_RETURN(job.function_,
                          ops::CompileProgram(job.program_, "op", facts.target));
  job.compile_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  job.logical_inputs_ = ops::RandomInputs(job.program_.logical_inputs, seed);
  TESSEL_ASSIGN_OR_RETURN(job.inputs_, ops::PrepareInputs(job.program_, job.logical_inputs_));
  job.outputs_ = ops::AllocateOutputs(job.program_);
  job.call_args_ = ops::CallArguments(job.inputs_, job.outputs_);
  TESSEL_RETURN_IF_ERROR(job.function_(std::span<const runtime::Arg>(job.call_args_)));
  return job;
}

void OpJob::Run() {
  // Create ran the same call once and checked its arguments: a failure now is a bug.
  if (!function_(std::span<const runtime::Arg>(call_args_)).ok()) std::abort();
}

absl::StatusOr<std::vector<runtime::NDArray>> OpJob::LogicalOutputs() const {
  if (program_.finish) return program_.finish(outputs_);
  return outputs_;
}

}  // namespace tessel::experiments
