#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/runtime/function_signature.h"

// The calling convention every backend gives a lowered function: its runtime signature
// (runtime/function_signature.h) and the variable behind each argument slot. Lower's functions
// take the data of each tensor argument, then scalar parameters; the slots are the parameters in
// order, then each variable that only a buffer's shape or strides define. The LLVM backend's
// entry point unpacks the slots into the typed body's arguments; a GPU kernel's C parameters are
// the slots themselves.
namespace tessel::codegen {

struct SlotSignature {
  runtime::FunctionSignature signature;
  std::vector<ir::Var> slot_vars;  // the variable of each slot: a buffer's data, or a scalar
  // Variables that stand for a buffer's elem_offset and are defined by nothing else: 0 (element
  // 0 is at the pointer the runtime passes).
  std::vector<ir::Var> zero_offsets;
};

// `taker` names the code that takes the arguments, for messages ("the llvm backend", "a GPU
// kernel"). Errors (InvalidArgument naming the function): a parameter that is neither a scalar
// nor a buffer's data or is listed twice, a shape or stride that is neither a constant nor an
// integer variable, strides of another rank than the shape, an elem_offset that is neither 0
// nor a variable of its own.
absl::StatusOr<SlotSignature> MakeSlotSignature(const ir::PrimFunc& func, const std::string& taker);

}  // namespace tessel::codegen
