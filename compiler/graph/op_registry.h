#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/tensor_type.h"

// Graph operators: for each logical operator of compiler/ops/OPERATORS.md, how a node's input
// types and attributes become the operator-library arguments, how its output types follow, and
// its fusion pattern.
//
// Output types come from the operator library itself, independent of any target: the operator's
// logical signature (compiler/ops/logical_op.h, from its target-independent compute) checks the
// arguments and gives the logical inputs and outputs. Every template's program takes and gives
// those same logical tensors (compiler/ops/x86/logical_op_test.cc checks the x86 ones), so the
// graph agrees with the kernels that run it, and argument errors are the library's, naming the
// operator and the key.
namespace tessel::graph {

// How an operator combines with its neighbours in operator fusion (the paper's four kinds; TVM's
// numbering, so "at most" comparisons read as in the paper).
enum class OpPattern {
  kElemWise = 0,         // out[i] = f(in[i]): relu, sigmoid
  kBroadcast = 1,        // element-wise over broadcast inputs: add, batch_norm (inference)
  kInjective = 2,        // each output element one input element: reshape, transpose, pad, concat
  kCommReduce = 3,       // reductions
  kOutEWiseFusable = 4,  // complex-out-fusable: conv2d, dense, pooling (element-wise tail fuses)
  kOpaque = 8,           // fuses with nothing: softmax, rnn cells, bit-serial operators
};
const char* OpPatternName(OpPattern p);

struct OpDef {
  std::string name;  // the OPERATORS.md name
  OpPattern pattern = OpPattern::kOpaque;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: any number
  int num_outputs = 1;
  // The operator-library arguments: the attributes plus the keys the input types determine.
  // Called with min_inputs..max_inputs types. Errors name the input or attribute.
  std::function<absl::StatusOr<nlohmann::json>(const std::vector<TensorType>& inputs,
                                               const nlohmann::json& attrs)>
      op_args;
  // Whether nodes of it may compute in blocked layouts (node_layout.h: data_layout, out_layout).
  bool blocked_data = false;
};

// The operator, or NotFound listing the known ones.
absl::StatusOr<const OpDef*> FindOpDef(const std::string& name);
std::vector<std::string> OpDefNames();

// The output types of `op` on inputs of these types with these attributes; errors say what is
// wrong (input count, rank, an argument the operator rejects).
absl::StatusOr<std::vector<TensorType>> InferTypes(const OpDef& op,
                                                   const std::vector<TensorType>& inputs,
                                                   const nlohmann::json& attrs);

}  // namespace tessel::graph
