// Logical signatures of the reductions (nn/reduce.h): x of `shape`, the result of the shape the
// arguments give.
#include "compiler/ops/logical_op_internal.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::logical {
namespace {

SignatureFn ReduceSignature(const nn::ReduceOp& reduce) {
  return [&reduce](const std::string& op, const OpArgs& args) -> absl::StatusOr<LogicalSignature> {
    ArgReader r(op, args);
    TESSEL_ASSIGN_OR_RETURN(const nn::ReduceArgs a, nn::ReadReduceArgs(r));
    te::Tensor x = Placeholder(a.shape, "x");
    TESSEL_ASSIGN_OR_RETURN(te::Tensor rows, nn::Reshape(x, {a.outer, a.k, a.inner}));
    const nn::ReduceTensors t = nn::ReduceRows(reduce, rows);
    TESSEL_ASSIGN_OR_RETURN(te::Tensor out, nn::Reshape(t.output, a.out_shape));
    return LogicalSignature{{SpecOf(x, "x", reduce.low, reduce.high)}, {SpecOf(out, "out")}};
  };
}

}  // namespace

void AddReduceOps(SignatureTable& table) {
  for (const nn::ReduceOp& reduce : nn::ReduceOps()) table[reduce.name] = ReduceSignature(reduce);
}

}  // namespace tessel::ops::logical
