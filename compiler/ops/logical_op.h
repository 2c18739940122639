#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/ops/template.h"

namespace tessel::ops::nn {
struct Conv2dAttrs;
}  // namespace tessel::ops::nn

// The logical form of each operator of OPERATORS.md, independent of any target: for an operator
// and its arguments (the JSON its templates read), the tensors it takes and gives, each a
// TensorSpec (name, shape, element type, and the range tests draw the input's values from). A
// graph types its nodes with it, and every template's program takes and gives exactly these
// logical tensors (compiler/ops/x86/logical_op_test.cc checks the x86 templates against it).
//
// Shapes and element types are read from the operator's target-independent compute
// (compiler/ops/nn) built on placeholders, not from formulas of their own. Where the compute takes
// an input in a form made on the host (the recurrent cells' joined, packed weights and summed
// biases; the bit-serial operators' weight bit planes), that input's logical shape is written as
// OPERATORS.md gives it; the outputs still come from the compute.
namespace tessel::ops {

struct LogicalSignature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

// The signature of operator `op` with `args`. Errors: NotFound for an operator without one
// (listing the known ones); InvalidArgument for arguments the operator rejects, "<op>: ..." naming
// the argument key (the checks the operator's templates make, minus their own restrictions:
// conv2d takes any groups and dilation).
absl::StatusOr<LogicalSignature> LogicalSignatureOf(const std::string& op, const OpArgs& args);

// conv2d_int8's inputs and outputs (OPERATORS.md: int8 data and weight, with `shift` an int32 bias
// drawn about the sums' typical magnitude; int8 out), which its templates declare too.
LogicalSignature Conv2dInt8Signature(const nn::Conv2dAttrs& a, bool requantized);

// dense_int8's likewise: data [m, k] and weight [n, k] int8, with `shift` a bias [n] int32; out
// [m, n] int8.
LogicalSignature DenseInt8Signature(int64_t m, int64_t n, int64_t k, bool requantized);

// Declares s as program p's logical inputs and outputs.
void SetLogicalSignature(OpProgram& p, LogicalSignature s);

// The operators LogicalSignatureOf knows, sorted.
std::vector<std::string> LogicalOpNames();

}  // namespace tessel::ops
