#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/ops/logical_op.h"
#include "compiler/ops/nn/bitserial.h"
#include "compiler/ops/op_args.h"
#include "compiler/te/tensor.h"

// Private to LogicalSignatureOf (logical_op.h): its operator families, one file each
// (logical_conv.cc, logical_matrix.cc, logical_pool.cc, logical_norm.cc, logical_elementwise.cc,
// logical_transform.cc, logical_reduce.cc), and what they share.
namespace tessel::ops::logical {

// The signature of one operator; `op` is its name (one function may serve several), which
// argument errors start with.
using SignatureFn =
    std::function<absl::StatusOr<LogicalSignature>(const std::string& op, const OpArgs& args)>;
using SignatureTable = std::map<std::string, SignatureFn>;

// Each family adds its operators to the table.
void AddConvOps(SignatureTable& table);
void AddMatrixOps(SignatureTable& table);
void AddPoolOps(SignatureTable& table);
void AddNormOps(SignatureTable& table);
void AddElementwiseOps(SignatureTable& table);
void AddTransformOps(SignatureTable& table);
void AddReduceOps(SignatureTable& table);

// The spec named `name` of t, a tensor of constant shape: t's shape and element type, values
// drawn from [low, high).
TensorSpec SpecOf(const te::Tensor& t, std::string name, double low = -1, double high = 1);

// A bit-serial operator's signature: `data` (activations of bits.activation_bits), a uint8 weight
// of `weight_shape` as OPERATORS.md gives it (the compute takes its bit planes, made on the host),
// and `out`.
LogicalSignature BitserialSignature(const te::Tensor& data, std::vector<int64_t> weight_shape,
                                    const te::Tensor& out, const nn::BitserialBits& bits);

// A placeholder of a constant shape.
te::Tensor Placeholder(const std::vector<int64_t>& shape, const std::string& name,
                       ir::DataType dtype = ir::kFloat32);

}  // namespace tessel::ops::logical
