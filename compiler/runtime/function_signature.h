#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

// What a compiled function expects of its arguments, and how the runtime passes them.
//
// A compiled function's machine entry point is `int32_t name(const uint64_t* slots)`: one
// 8-byte slot per kernel value, in slot order. The first slots are the function's parameters in
// order (a tensor's data pointer, already advanced by byte_offset; an integer as int64_t; a float
// as double's bits); after them come the variables that only a tensor's shape or strides define
// (int64_t). The entry returns 0, or non-zero after reporting an error through the runtime
// (module.h). The signature lets the runtime check each argument before the call, so that the
// generated code may assume what it declares (shapes, strides, alignment, no aliasing).
namespace tessel::runtime {

// One entry of a tensor's shape or strides: a constant, or the value of slot `slot`.
struct DimSpec {
  int64_t value = 0;
  int slot = -1;  // >= 0: the variable in this slot

  bool is_constant() const { return slot < 0; }
};

struct ParamSpec {
  enum class Kind { kTensor, kInt, kFloat };
  std::string name;
  Kind kind = Kind::kTensor;
  // A tensor's element type, or a scalar's type.
  DLDataType dtype{kDLFloat, 32, 1};
  // Tensors only. Empty strides: compact row-major.
  std::vector<DimSpec> shape;
  std::vector<DimSpec> strides;
  // Tensors only: the byte alignment the code assumes of data + byte_offset.
  int alignment = 1;
  // Tensors only: whether the function writes it (then no other tensor argument may overlap it).
  bool written = false;
};

// A slot holding a variable: its name and integer width (slots of parameters are the
// parameters themselves).
struct SlotVar {
  std::string name;
  int bits = 32;
};

struct FunctionSignature {
  std::string name;
  std::vector<ParamSpec> params;
  // Slots after the parameters: variables bound from tensors.
  std::vector<SlotVar> bound_vars;

  int num_slots() const { return static_cast<int>(params.size() + bound_vars.size()); }
};

// JSON form, embedded in saved libraries.
std::string SignaturesToJson(const std::vector<FunctionSignature>& signatures);
// The inverse; an error names what is malformed.
absl::StatusOr<std::vector<FunctionSignature>> SignaturesFromJson(const std::string& json);

}  // namespace tessel::runtime
