#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

// The type of a value of a graph: a static shape and an element type. Every extent is known at
// compile time (batch included); a model with symbolic dimensions gets them bound at import.
namespace tessel::graph {

struct TensorType {
  std::vector<int64_t> shape;
  DLDataType dtype{kDLFloat, 32, 1};

  int64_t NumElements() const;
  int64_t NumBytes() const;
  // "float32[1, 64, 56, 56]"
  std::string ToString() const;
  bool operator==(const TensorType& other) const;
  bool operator!=(const TensorType& other) const { return !(*this == other); }
};

inline constexpr DLDataType kFloat32{kDLFloat, 32, 1};
inline constexpr DLDataType kInt64{kDLInt, 64, 1};

}  // namespace tessel::graph
