#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/runtime/ndarray.h"

// Reference results from libtorch for the operators of compiler/ops/OPERATORS.md, computed on the
// logical forms listed there (operators torch lacks, such as the bit-serial ones, are computed
// from torch's float64 ops on exact integer values). This header keeps libtorch's own headers out
// of the files that include it.
namespace tessel::baselines {

// The logical outputs of `op` with `args` on `inputs` (logical forms, contiguous). Errors name the
// operator and the mismatching input or argument; NotFound for an operator without a reference.
absl::StatusOr<std::vector<runtime::NDArray>> TorchReference(
    const std::string& op, const ops::OpArgs& args, const std::vector<runtime::NDArray>& inputs);

// The operators TorchReference knows.
std::vector<std::string> TorchReferenceOps();

}  // namespace tessel::baselines
