#include "compiler/ops/op_runner.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cmath>
#include <random>

#include "compiler/codegen/build.h"
#include "compiler/ir/dl_type.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/runtime/device_api.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/uniform_real.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops {
namespace {

template <typename T>
void FillIntegers(runtime::NDArray& x, std::mt19937& rng, int64_t low, int64_t high) {
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<T>()[i] = static_cast<T>(dist(rng));
}

}  // namespace

absl::StatusOr<std::vector<runtime::NDArray>> CopyArrays(
    const std::vector<runtime::NDArray>& arrays, DLDevice device) {
  std::vector<runtime::NDArray> out;
  for (const runtime::NDArray& x : arrays) {
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray copy, x.CopyTo(device));
    out.push_back(std::move(copy));
  }
  return out;
}

absl::StatusOr<runtime::Function> CompileProgram(const OpProgram& program, const std::string& name,
                                                 const target::Target& target) {
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                          transforms::Lower(program.schedule, program.args, name));
  TESSEL_ASSIGN_OR_RETURN(runtime::Module module, codegen::Build({func}, target));
  return module.GetFunction(name);
}

std::vector<runtime::NDArray> RandomInputs(const std::vector<TensorSpec>& specs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<runtime::NDArray> out;
  for (const TensorSpec& spec : specs) {
    runtime::NDArray x = runtime::NDArray::Empty(spec.shape, spec.dtype);
    const DLDataType t = spec.dtype;
    const auto low = static_cast<int64_t>(spec.low), high = static_cast<int64_t>(spec.high);
    if (t.code == kDLFloat && t.bits == 32) {
      UniformReal<float> dist(static_cast<float>(spec.low), static_cast<float>(spec.high));
      for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = dist(rng);
    } else if (t.code == kDLFloat && t.bits == 64) {
      UniformReal<double> dist(spec.low, spec.high);
      for (int64_t i = 0; i < x.NumElements(); ++i) x.data<double>()[i] = dist(rng);
    } else if (t.code == kDLUInt && t.bits == 8) {
      FillIntegers<uint8_t>(x, rng, low, high);
    } else if (t.code == kDLInt && t.bits == 8) {
      FillIntegers<int8_t>(x, rng, low, high);
    } else if (t.code == kDLInt && t.bits == 32) {
      FillIntegers<int32_t>(x, rng, low, high);
    } else if (t.code == kDLInt && t.bits == 64) {
      FillIntegers<int64_t>(x, rng, low, high);
    } else {
      TESSEL_UNREACHABLE() << "cannot draw inputs of type " << runtime::DLTypeToString(t);
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<runtime::NDArray> AllocateOutputs(const OpProgram& program) {
  std::vector<runtime::NDArray> out;
  const size_t first = program.args.size() - program.num_outputs;
  for (size_t i = first; i < program.args.size(); ++i) {
    const te::Tensor& t = program.args[i];
    absl::StatusOr<std::vector<int64_t>> shape = nn::ConstShape(t, "an OpProgram's output");
    TESSEL_CHECK(shape.ok()) << shape.status().message();
    out.push_back(runtime::NDArray::Empty(*shape, ir::ToDLType(t.dtype())));
  }
  return out;
}

absl::StatusOr<std::vector<runtime::NDArray>> PrepareInputs(
    const OpProgram& program, const std::vector<runtime::NDArray>& logical) {
  if (program.prepare) return program.prepare(logical);
  return logical;
}

std::vector<runtime::Arg> CallArguments(std::vector<runtime::NDArray>& inputs,
                                        std::vector<runtime::NDArray>& outputs) {
  std::vector<runtime::Arg> args;
  for (runtime::NDArray& x : inputs) args.push_back(const_cast<DLTensor*>(x.dl()));
  for (runtime::NDArray& x : outputs) args.push_back(const_cast<DLTensor*>(x.dl()));
  return args;
}

absl::StatusOr<std::vector<runtime::NDArray>> RunLogical(
    const OpProgram& program, const runtime::Function& f,
    const std::vector<runtime::NDArray>& inputs, DLDevice device) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> physical, PrepareInputs(program, inputs));
  std::vector<runtime::NDArray> outputs = AllocateOutputs(program);
  if (!runtime::IsHost(device)) {
    TESSEL_ASSIGN_OR_RETURN(physical, CopyArrays(physical, device));
    TESSEL_ASSIGN_OR_RETURN(outputs, CopyArrays(outputs, device));
  }
  const std::vector<runtime::Arg> args = CallArguments(physical, outputs);
  TESSEL_RETURN_IF_ERROR(f(std::span<const runtime::Arg>(args)));
  if (!runtime::IsHost(device)) {
    TESSEL_ASSIGN_OR_RETURN(outputs, CopyArrays(outputs, DLDevice{kDLCPU, 0}));
  }
  if (program.finish) return program.finish(outputs);
  return outputs;
}

}  // namespace tessel::ops
