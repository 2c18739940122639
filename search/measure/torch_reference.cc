#include "search/measure/torch_reference.h"

#include "baselines/torch/reference.h"
#include "compiler/ops/template.h"

namespace tessel::search {

ReferenceFn TorchReferenceFn() {
  return [](const Task& task, const std::vector<runtime::NDArray>& inputs)
             -> absl::StatusOr<std::vector<runtime::NDArray>> {
    absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
    if (!t.ok()) return t.status();
    return baselines::TorchReference((*t)->op, task.args, inputs);
  };
}

}  // namespace tessel::search
