#include "compiler/driver/compiled_model.h"

#include <absl/strings/str_cat.h>

#include "compiler/runtime/staged_function.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"

namespace tessel::driver {

int CompiledModel::NumTuned() const {
  int n = 0;
  for (const CompiledKernel& k : kernels) n += k.tuned ? 1 : 0;
  return n;
}

int CompiledModel::NumOffloaded() const {
  int n = 0;
  for (const CompiledKernel& k : kernels) n += k.offloaded ? 1 : 0;
  return n;
}

int CompiledModel::NumFusedSteps() const {
  int n = 0;
  for (const CompiledStep& s : steps) n += s.nodes.size() > 1 ? 1 : 0;
  return n;
}

namespace {

// The offloaded kernel of one step, called with host tensors; the step's parameters stay on the
// accelerator.
absl::StatusOr<runtime::Function> StageOffloaded(const CompiledModel& model,
                                                 const CompiledKernel& kernel,
                                                 const CompiledStep& step) {
  if (!model.offload || !model.offload_module.defined()) {
    return absl::InternalError(
        absl::StrCat("kernel ", kernel.function, " is offloaded, but the model has no offload"));
  }
  TESSEL_ASSIGN_OR_RETURN(runtime::Function f, model.offload_module.GetFunction(kernel.function));
  std::vector<bool> resident(f.signature().params.size(), false);
  for (size_t a = 0; a < step.args.size() && a < resident.size(); ++a) {
    resident[a] = step.args[a].source == runtime::KernelArg::Source::kParameter;
  }
  TESSEL_ASSIGN_OR_RETURN(
      runtime::StagedFunction staged,
      runtime::StagedFunction::Create(f, target::TargetDevice(model.offload->target), resident));
  return staged.host();
}

}  // namespace

absl::StatusOr<runtime::GraphExecutor> MakeExecutor(const CompiledModel& model,
                                                    const runtime::ExecutorOptions& options) {
  const graph::Graph& g = model.graph;
  runtime::ExecutorPlan plan;
  for (const graph::Value& v : g.values) {
    plan.values.push_back({v.name,
                           {v.type.shape, v.type.dtype},
                           v.kind == graph::ValueKind::kConstant ? v.data : runtime::NDArray()});
  }
  plan.inputs = g.inputs;
  plan.outputs = g.outputs;
  plan.parameters = model.parameters;
  plan.storage_of = model.memory.storage_of;
  plan.storage_bytes = model.memory.storage_bytes;
  plan.device = target::TargetDevice(model.facts.target);
  for (const CompiledStep& c : model.steps) {
    if (c.kernel < 0 || static_cast<size_t>(c.kernel) >= model.kernels.size() || c.nodes.empty()) {
      return absl::InternalError(absl::StrCat("a step has no kernel (", c.kernel, ") or no nodes"));
    }
    runtime::ExecutorStep step;
    for (int n : c.nodes) {
      absl::StrAppend(&step.name, step.name.empty() ? "" : "+",
                      g.nodes.at(static_cast<size_t>(n)).name);
    }
    const CompiledKernel& kernel = model.kernels[static_cast<size_t>(c.kernel)];
    if (kernel.offloaded) {
      TESSEL_ASSIGN_OR_RETURN(step.kernel, StageOffloaded(model, kernel, c));
    } else {
      TESSEL_ASSIGN_OR_RETURN(step.kernel, model.module.GetFunction(kernel.function));
    }
    step.inputs = c.inputs;
    step.outputs = c.outputs;
    step.args = c.args;
    step.results = c.results;
    step.result_mode = c.result_mode;
    step.blocked = c.blocked;
    step.prepare = c.prepare;
    step.finish = c.finish;
    plan.steps.push_back(std::move(step));
  }
  return runtime::GraphExecutor::Create(std::move(plan), options);
}

}  // namespace tessel::driver
