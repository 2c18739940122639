#pragma once

#include "compiler/ops/injective/host_reshape.h"

// The host reshapes of ops/injective/host_reshape.h under the name this folder's templates
// use (softmax, global pooling) and the measurement tests' fault template.
namespace tessel::ops::x86 {

using injective::ReshapeArrays;

}  // namespace tessel::ops::x86
