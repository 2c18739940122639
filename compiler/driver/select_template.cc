#include "compiler/driver/select_template.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/x86/conv2d_strategy.h"
#include "compiler/support/status_macros.h"

namespace tessel::driver {

absl::StatusOr<const ops::Template*> SelectTemplate(const std::string& op,
                                                    const nlohmann::json& args,
                                                    const ops::TargetFacts& facts) {
  if (op == "conv2d") {
    TESSEL_ASSIGN_OR_RETURN(ops::nn::Conv2dAttrs attrs, ops::nn::ReadConv2dAttrs(op, args));
    return ops::FindTemplate(ops::x86::SelectConv2dTemplate(attrs, facts));
  }
  for (const ops::Template* t : ops::AllTemplates()) {
    if (t->op == op) return t;
  }
  return absl::UnimplementedError(absl::StrCat("no x86 template computes operator '", op, "'"));
}

}  // namespace tessel::driver
