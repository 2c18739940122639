#pragma once

#include <string>
#include <vector>

#include "compiler/codegen/interp/code.h"
#include "compiler/codegen/interp/compiler.h"
#include "compiler/codegen/interp/interp.h"

// Binding Run's arguments to a compiled function's parameters (interp.h states the rules).
// Private to the interpreter.
namespace tessel::interp::detail {

// One shape, stride or elem_offset entry of a buffer parameter, taken from the tensor.
struct TensorEntry {
  enum class Field : uint8_t { kShape, kStride, kElemOffset };
  Field field;
  int dim;
  std::string Name() const;
};

// A parameter's variable that the tensor defines: bound to the entry's value.
struct EntryBinding {
  TensorEntry entry;
  int slot;
  Compiler::WrapFn wrap;
  std::string var;
};

// An entry that must equal an expression of the parameters, checked once all are bound.
struct EntryCheck {
  int param;
  TensorEntry entry;
  ExprPtr expected;
  std::string text;
};

struct ParamPlan {
  std::string name;
  ir::Buffer buffer;  // undefined for a scalar
  // Scalars.
  int slot = -1;
  ScalarKind kind = ScalarKind::kInt32;
  // Buffers.
  int binding = -1;
  std::vector<EntryBinding> bindings;
};

struct ParamPlans {
  std::vector<ParamPlan> params;
  std::vector<EntryCheck> checks;
};

// Defines the parameters of func in c's scope, as Run will bind them.
ParamPlans PlanParams(Compiler& c, const ir::PrimFunc& func);

// Binds args to the parameters in f; an error names the argument and parameter.
absl::Status BindParams(const ParamPlans& plans, const std::vector<Arg>& args, Frame& f);

}  // namespace tessel::interp::detail
