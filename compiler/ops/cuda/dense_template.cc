// dense.gpu: dense (data [m, k] times weight [n, k] transposed, plus bias) as one GPU kernel in
// the product schedule of matmul_template_schedule.h, on the logical inputs (no prepare).
//
// Tiled form: each k step copies a data tile [rows, ki] and a weight tile into shared memory.
// The weight tile is stored transposed, [ki, cols], so that the threads of a row (consecutive
// threadIdx.x, consecutive column blocks) read consecutive words of shared memory, while the
// copy itself still reads each weight row along k (coalesced). Split-k form (the fallback for
// m <= 4 and k of at least four warps, batch-1 inference): the data and weight rows are read
// straight from global memory, consecutive threads at consecutive k.
//
// The bias and a fused tail (instantiate_with_tail) are applied in the output stage, which reads
// each thread's sums from registers. The output is logical, so is its index.
#include "compiler/ir/op.h"
#include "compiler/ops/cuda/matmul_template_schedule.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using nn::Dim;

constexpr char kName[] = "dense.gpu";

ProductDims Dims(const nn::DenseArgs& a) {
  return {.rows = a.m, .cols = a.n, .k = a.k, .allow_split_k = true};
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  search::ConfigSpace space;
  DefineProductKnobs(space, Dims(a), facts);
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::DenseArgs a = *nn::ReadDenseArgs(kName, args);  // Space has read them
  return ConfigFromKnobs(space, ProductFallback(Dims(a), facts));
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const ProductDims dims = Dims(a);
  const ProductTiles tiles = ReadProductTiles(config);
  te::Tensor data = te::placeholder({Dim(a.m), Dim(a.k)}, ir::kFloat32, "data");
  te::Tensor weight = te::placeholder({Dim(a.n), Dim(a.k)}, ir::kFloat32, "weight");
  te::Tensor bias;
  if (a.bias) bias = te::placeholder({Dim(a.n)}, ir::kFloat32, "bias");

  std::vector<StagedTile> staged;
  ProductTerm term = [&](const std::vector<ir::Var>& v, const ir::Expr& r) {
    return data(v[0], r) * weight(v[1], r);
  };
  if (tiles.split_k == 1) {
    const int64_t rows = tiles.padded_rows(), cols = tiles.padded_cols(), k = tiles.padded_k();
    te::Tensor data_s = ZeroPadded(
        {rows, k}, {a.m, a.k}, [&](const std::vector<ir::Var>& v) { return data(v[0], v[1]); },
        "data_shared");
    te::Tensor weight_s = ZeroPadded(
        {k, cols}, {a.k, a.n}, [&](const std::vector<ir::Var>& v) { return weight(v[1], v[0]); },
        "weight_shared");
    staged = {{data_s, 1}, {weight_s, 0}};
    term = [data_s, weight_s](const std::vector<ir::Var>& v, const ir::Expr& r) {
      return data_s(v[0], r) * weight_s(r, v[1]);
    };
  }
  ProductSums sums = MakeProductSums(dims, tiles, term, "dense_acc");
  te::Tensor out = te::compute(
      {Dim(a.m), Dim(a.n)},
      [&](ir::Var i, ir::Var j) {
        ir::Expr v = sums.acc(i, j);
        return a.bias ? v + bias(j) : v;
      },
      "dense");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(p.schedule[out].compute_inline());
  TESSEL_RETURN_IF_ERROR(ScheduleProduct(p.schedule, stored.op(), sums, staged, dims, tiles));
  SetDenseSignature(p, a, data, weight, bias, stored);
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeDenseTemplate() {
  return TailFusingTemplate(
      kName, "dense", "dense on a GPU: shared-memory tiles, register sums; split k for batch 1",
      Space, Fallback, Instantiate);
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("gpu", MakeDenseTemplate());

}  // namespace tessel::ops::cuda
