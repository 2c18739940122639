#pragma once

#include <absl/status/status.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"

// Checks of a reference's inputs against the tensors its arguments call for. Messages name the
// operator, the input's index and role, and what differs.
namespace tessel::baselines::internal {

inline constexpr DLDataType kFloat32{kDLFloat, 32, 1};
inline constexpr DLDataType kUInt8{kDLUInt, 8, 1};
inline constexpr DLDataType kInt32{kDLInt, 32, 1};

struct InputSpec {
  std::string name;  // its role, e.g. "weight"
  std::vector<int64_t> shape;
  DLDataType dtype = kFloat32;
};

// Ok when there are exactly specs.size() inputs, each defined with the spec's shape and dtype.
absl::Status CheckInputs(const std::string& op, const std::vector<runtime::NDArray>& inputs,
                         const std::vector<InputSpec>& specs);

// "[1, 3, 224, 224]".
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace tessel::baselines::internal
