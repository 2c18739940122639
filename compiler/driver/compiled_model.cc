#include "compiler/driver/compiled_model.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/status_macros.h"

namespace tessel::driver {

int CompiledModel::NumTuned() const {
  int n = 0;
  for (const CompiledKernel& k : kernels) n += k.tuned ? 1 : 0;
  return n;
}

absl::StatusOr<runtime::GraphExecutor> MakeExecutor(const CompiledModel& model,
                                                    const runtime::ExecutorOptions& options) {
  const graph::Graph& g = model.graph;
  if (model.nodes.size() != g.nodes.size()) {
    return absl::InternalError(absl::StrCat("the model has ", model.nodes.size(),
                                            " compiled nodes for ", g.nodes.size(), " nodes"));
  }
  runtime::ExecutorPlan plan;
  for (const graph::Value& v : g.values) {
    plan.values.push_back({v.name,
                           {v.type.shape, v.type.dtype},
                           v.kind == graph::ValueKind::kConstant ? v.data : runtime::NDArray()});
  }
  plan.inputs = g.inputs;
  plan.outputs = g.outputs;
  plan.parameters = model.parameters;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& node = g.nodes[i];
    const CompiledNode& c = model.nodes[i];
    if (c.kernel < 0 || static_cast<size_t>(c.kernel) >= model.kernels.size()) {
      return absl::InternalError(
          absl::StrCat("node '", node.name, "' has no kernel (", c.kernel, ")"));
    }
    runtime::ExecutorStep step;
    step.name = node.name;
    TESSEL_ASSIGN_OR_RETURN(
        step.kernel,
        model.module.GetFunction(model.kernels[static_cast<size_t>(c.kernel)].function));
    step.inputs = node.inputs;
    step.outputs = node.outputs;
    step.args = c.args;
    step.results = c.results;
    step.use_finish = c.use_finish;
    step.prepare = c.prepare;
    step.finish = c.finish;
    plan.steps.push_back(std::move(step));
  }
  return runtime::GraphExecutor::Create(std::move(plan), options);
}

}  // namespace tessel::driver
