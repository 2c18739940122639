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
  // VDLA computes the layer in int8, as the paper's 8-bit ResNet.
  const std::string op = facts.vdla ? "conv2d_int8" : "conv2d";
  if (op == "conv2d_int8") {
    task.args.erase("dilation");                                         // [1, 1] in every layer
    if (layer.kind != LayerKind::kDepthwise) task.args.erase("groups");  // else refused below
  }
  if (task.template_name.empty()) {
    TESSEL_ASSIGN_OR_RETURN(const ops::Template* chosen, ops::SelectTemplate(op, task.args, facts));
    task.template_name = chosen->name;
  }
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  if (t->op != op)
    return absl::InvalidArgumentError(absl::StrCat("template ", t->name, " computes ", t->op,
                                                   ", not the ", op, " of layer ", name));
  // The template must accept the layer (e.g. Winograd only takes 3x3 stride 1).
  TESSEL_RETURN_IF_ERROR(search::Space(task, facts).status());
  return task;
}

}  // namespace tessel::workloads
