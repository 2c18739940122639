#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/runtime/ndarray.h"

// The references grouped by the file that computes them; reference.cc joins the groups into one
// table. A reference checks its arguments and inputs itself (inputs.h, forms.h) and may throw
// torch's exceptions, which TorchReference turns into errors.
namespace tessel::baselines::internal {

using Outputs = absl::StatusOr<std::vector<runtime::NDArray>>;
// `op` lets one function serve several operators (relu, sigmoid, tanh) and name them in errors.
using ReferenceFn = Outputs (*)(const std::string& op, const ops::OpArgs& args,
                                const std::vector<runtime::NDArray>& inputs);

struct ReferenceEntry {
  std::string op;
  ReferenceFn fn;
};

// conv2d, conv2d_transpose.
std::vector<ReferenceEntry> ConvReferences();
// dense, matmul, batch_matmul, rnn_cell, lstm_cell.
std::vector<ReferenceEntry> LinearReferences();
// Pooling, batch_norm, activations, softmax.
std::vector<ReferenceEntry> NnReferences();
// Broadcasting elementwise ops, concatenate, reshape, flatten, transpose, pad, layout_transform,
// take.
std::vector<ReferenceEntry> TransformReferences();
// bitserial_conv2d, bitserial_dense.
std::vector<ReferenceEntry> BitserialReferences();
// conv2d_int8, dense_int8, quantize, dequantize.
std::vector<ReferenceEntry> Int8References();

}  // namespace tessel::baselines::internal
