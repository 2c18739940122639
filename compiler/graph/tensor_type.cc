#include "compiler/graph/tensor_type.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/runtime/dltype.h"

namespace tessel::graph {

int64_t TensorType::NumElements() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

int64_t TensorType::NumBytes() const { return NumElements() * runtime::DLTypeBytes(dtype); }

std::string TensorType::ToString() const {
  return absl::StrCat(runtime::DLTypeToString(dtype), "[", absl::StrJoin(shape, ", "), "]");
}

bool TensorType::operator==(const TensorType& other) const {
  return shape == other.shape && runtime::SameDLType(dtype, other.dtype);
}

}  // namespace tessel::graph
