#include "compiler/ops/logical_op.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <utility>

#include "compiler/ir/dl_type.h"
#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops {
namespace {

const logical::SignatureTable& Table() {
  static const auto* const table = [] {
    auto* t = new logical::SignatureTable;
    logical::AddConvOps(*t);
    logical::AddMatrixOps(*t);
    logical::AddPoolOps(*t);
    logical::AddNormOps(*t);
    logical::AddReduceOps(*t);
    logical::AddElementwiseOps(*t);
    logical::AddTransformOps(*t);
    return t;
  }();
  return *table;
}

}  // namespace

absl::StatusOr<LogicalSignature> LogicalSignatureOf(const std::string& op, const OpArgs& args) {
  auto it = Table().find(op);
  if (it == Table().end()) {
    return absl::NotFoundError(absl::StrCat("no logical signature for operator '", op, "' (known: ",
                                            absl::StrJoin(LogicalOpNames(), ", "), ")"));
  }
  return it->second(op, args);
}

void SetLogicalSignature(OpProgram& p, LogicalSignature s) {
  p.logical_inputs = std::move(s.inputs);
  p.logical_outputs = std::move(s.outputs);
}

std::vector<std::string> LogicalOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Table()) names.push_back(name);
  return names;
}

namespace logical {

TensorSpec SpecOf(const te::Tensor& t, std::string name, double low, double high) {
  absl::StatusOr<std::vector<int64_t>> shape = nn::ConstShape(t, name);
  TESSEL_CHECK(shape.ok()) << shape.status().message();
  return TensorSpec{std::move(name), *std::move(shape), ir::ToDLType(t.dtype()), low, high};
}

LogicalSignature BitserialSignature(const te::Tensor& data, std::vector<int64_t> weight_shape,
                                    const te::Tensor& out, const nn::BitserialBits& bits) {
  const TensorSpec weight{"weight", std::move(weight_shape), DLDataType{kDLUInt, 8, 1}, 0,
                          static_cast<double>(int64_t{1} << bits.weight_bits)};
  return LogicalSignature{
      {SpecOf(data, "data", 0, static_cast<double>(int64_t{1} << bits.activation_bits)), weight},
      {SpecOf(out, "out")}};
}

te::Tensor Placeholder(const std::vector<int64_t>& shape, const std::string& name,
                       ir::DataType dtype) {
  return te::placeholder(nn::ShapeExprs(shape), dtype, name);
}

}  // namespace logical
}  // namespace tessel::ops
