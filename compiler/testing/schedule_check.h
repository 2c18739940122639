#pragma once

#include <absl/status/status.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/schedule/schedule.h"
#include "compiler/testing/backends.h"
#include "compiler/testing/host_tensor.h"

// Checking a schedule against the unscheduled computation: both are lowered, run by the
// reference interpreter on the same seeded random inputs, and their outputs compared.
namespace tessel::testing {

// Fresh host tensors for the arguments, inputs filled from rng.
std::vector<std::unique_ptr<HostTensor>> MakeArgs(const std::vector<te::Tensor>& args,
                                                  size_t num_inputs, std::mt19937& rng);

// Lowers schedule over args and runs it on tensors; returns the error of either step.
absl::Status LowerAndRun(const schedule::Schedule& schedule, const std::vector<te::Tensor>& args,
                         std::vector<std::unique_ptr<HostTensor>>& tensors,
                         Backend backend = Backend::kInterp);

// OK when `schedule` (of the outputs among args) computes what the default schedule computes;
// else an error with the mismatch. The last args.size() - num_inputs arguments are outputs. The
// reference always runs on the interpreter; `schedule` runs on backend.
absl::Status CheckAgainstUnscheduled(const schedule::Schedule& schedule,
                                     const std::vector<te::Tensor>& args, size_t num_inputs,
                                     uint32_t seed, Backend backend = Backend::kInterp);

}  // namespace tessel::testing
