#pragma once

#include "search/measure/measure.h"

// The libtorch reference of a task (baselines/torch/reference.h) as a Measurer's ReferenceFn:
// the outputs of the task's template's logical operator. What the tuner and the tests check
// candidates against.
namespace tessel::search {

ReferenceFn TorchReferenceFn();

}  // namespace tessel::search
