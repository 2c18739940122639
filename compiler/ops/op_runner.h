#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ops/template.h"
#include "compiler/runtime/compare.h"
#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/target/target.h"

// Running an OpProgram outside the tuner: compile it, draw inputs, run it on logical inputs
// (through prepare/finish), compare outputs. The tests (testing/op_check.h) and `tessel bench
// ops` share these.
namespace tessel::ops {

// The program lowered as function `name` and built for target.
absl::StatusOr<runtime::Function> CompileProgram(const OpProgram& program, const std::string& name,
                                                 const target::Target& target);

// Seeded random logical inputs within each TensorSpec's range.
std::vector<runtime::NDArray> RandomInputs(const std::vector<TensorSpec>& specs, uint32_t seed);

// Empty arrays for the program's outputs (the last num_outputs args).
std::vector<runtime::NDArray> AllocateOutputs(const OpProgram& program);

// The program's input arrays for these logical inputs (prepare, or the inputs themselves).
absl::StatusOr<std::vector<runtime::NDArray>> PrepareInputs(
    const OpProgram& program, const std::vector<runtime::NDArray>& logical);

// Each array copied to `device` (host arrays to a GPU, or back with {kDLCPU, 0}); the copies are
// complete when this returns.
absl::StatusOr<std::vector<runtime::NDArray>> CopyArrays(
    const std::vector<runtime::NDArray>& arrays, DLDevice device);

// f's arguments: inputs, then outputs.
std::vector<runtime::Arg> CallArguments(std::vector<runtime::NDArray>& inputs,
                                        std::vector<runtime::NDArray>& outputs);

// Runs program on logical inputs (host arrays), returns the logical outputs (host arrays). f
// runs on `device` (target_device.h's TargetDevice of the target it was built for): the
// program's inputs are copied there and its outputs back before finish.
absl::StatusOr<std::vector<runtime::NDArray>> RunLogical(
    const OpProgram& program, const runtime::Function& f,
    const std::vector<runtime::NDArray>& inputs, DLDevice device = {kDLCPU, 0});

// Outputs against a reference: the runtime's comparison (compare.h), which cuda_runner shares.
using runtime::CompareOutputs;
using runtime::Tolerance;

}  // namespace tessel::ops
