#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/template.h"
#include "compiler/target/gpu_facts.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// Small helpers every template library uses (x86, GPU, Mali, VDLA).
namespace tessel::ops {

// The config of space with these "knobs" (a check: the templates' fallbacks are points of their
// spaces).
search::Config ConfigFromKnobs(const search::ConfigSpace& space, const nlohmann::json& knobs);

// The divisors of n >= 1, ascending (a tile knob's values).
std::vector<int64_t> Divisors(int64_t n);

// The target's GPU facts; InvalidArgument "<what>: needs a GPU target (cuda or opencl); target
// '<target>' is not a GPU" for a target without them.
absl::StatusOr<target::GpuFacts> RequireGpu(const std::string& what,
                                            const target::TargetFacts& facts);

// The signature every dense program has (OPERATORS.md): args data, weight, bias (when a.bias)
// and out; the product's and the bias's flops; the logical inputs and output. `weight` is the
// program's weight input, in whatever layout its prepare makes.
void SetDenseSignature(OpProgram& p, const nn::DenseArgs& a, const te::Tensor& data,
                       const te::Tensor& weight, const te::Tensor& bias, const te::Tensor& out);

}  // namespace tessel::ops
