#pragma once

#include <absl/status/status.h>

#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// Comparing a program's outputs with a reference's, elementwise: what the operator tests, the
// measure worker and cuda_runner (which links none of the compiler) all check with.
namespace tessel::runtime {

struct Tolerance {
  // |ours - reference| <= atol + rtol * |reference|, elementwise (integer outputs: exact).
  double atol = 1e-3;
  double rtol = 1e-3;
};

// Ok when got matches want within tolerance (host arrays); otherwise the first mismatch with its
// index. `reference` names where want came from, for the message.
absl::Status CompareOutputs(const std::vector<NDArray>& got, const std::vector<NDArray>& want,
                            const Tolerance& tolerance, const std::string& reference = "libtorch");

}  // namespace tessel::runtime
