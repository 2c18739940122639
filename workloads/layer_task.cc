#include "workloads/layer_task.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/strategy.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "workloads/table2.h"

namespace tessel::workloads {

absl::StatusOr<search::Task> LayerTask(const std::string& name, const target::TargetFacts& facts,
                                       const std::string& template_name) {
  TESSEL_ASSIGN_OR_RETURN(Layer layer, FindLayer(name));
  search::Task task{
      .template_name = template_name, .args = Conv2dArgs(layer), .target = facts.target};
  if (task.template_name.empty()) {
    TESSEL_ASSIGN_OR_RETURN(const ops::Template* chosen,
                            ops::SelectTemplate("conv2d", task.args, facts));
    task.template_name = chosen->name;
  }
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  if (t->op != "conv2d")
    return absl::InvalidArgumentError(absl::StrCat("template ", t->name, " computes ", t->op,
                                                   ", not the conv2d of layer ", name));
  // The template must accept the layer (e.g. Winograd only takes 3x3 stride 1).
  TESSEL_RETURN_IF_ERROR(search::Space(task, facts).status());
  return task;
}

}  // namespace tessel::workloads
