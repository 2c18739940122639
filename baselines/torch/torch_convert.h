#pragma once

#include <ATen/ATen.h>

#include "compiler/runtime/ndarray.h"

// Copies between NDArray and at::Tensor for the element types the references use (float32,
// float64, uint8, int8, int32, int64). Preconditions (checked): a defined NDArray, a type on
// that list.
namespace tessel::baselines::internal {

// A contiguous CPU tensor holding a copy of a's elements.
at::Tensor ToTorch(const runtime::NDArray& a);
// A compact NDArray holding a copy of t's elements.
runtime::NDArray FromTorch(const at::Tensor& t);

}  // namespace tessel::baselines::internal
