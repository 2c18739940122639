#include "baselines/torch/inputs.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/runtime/dltype.h"

namespace tessel::baselines::internal {

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::Status CheckInputs(const std::string& op, const std::vector<runtime::NDArray>& inputs,
                         const std::vector<InputSpec>& specs) {
  if (inputs.size() != specs.size()) {
    std::vector<std::string> names;
    for (const InputSpec& spec : specs) names.push_back(spec.name);
    return absl::InvalidArgumentError(absl::StrCat(op, ": expected ", specs.size(), " inputs (",
                                                   absl::StrJoin(names, ", "), "), got ",
                                                   inputs.size()));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& spec = specs[i];
    const std::string where = absl::StrCat(op, ": input ", i, " (", spec.name, ")");
    if (!inputs[i].defined()) return absl::InvalidArgumentError(absl::StrCat(where, " is null"));
    if (!runtime::SameDLType(inputs[i].dtype(), spec.dtype)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has dtype ", runtime::DLTypeToString(inputs[i].dtype()),
                       ", expected ", runtime::DLTypeToString(spec.dtype)));
    }
    if (inputs[i].shape() != spec.shape) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " has shape ", ShapeString(inputs[i].shape()), ", expected ",
                       ShapeString(spec.shape), " from the arguments"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::baselines::internal
