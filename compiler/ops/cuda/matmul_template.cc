// matmul.gpu and batch_matmul.gpu: products of two activations (a [(batch,) m, k] times
// b [(batch,) k, n]) as one GPU kernel in the tiled form of matmul_template_schedule.h, the batch
// on blockIdx.z. Each k step copies an a tile [rows, ki] and a b tile [ki, cols] into shared
// memory, both read along their rows (k for a, n for b: coalesced). The split-k form is not
// offered: b's columns are n apart along k, so threads at consecutive k would not read
// consecutive words.
//
// A fused tail (instantiate_with_tail) is applied in the output stage, which reads each thread's
// sums from registers. The output is logical, so is its index.
#include "compiler/ir/op.h"
#include "compiler/ops/cuda/matmul_template_schedule.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using nn::Dim;

ProductDims Dims(const nn::MatmulArgs& a) {
  return {.batch = a.batch, .rows = a.m, .cols = a.n, .k = a.k};
}

// With the batch axis first when there is one.
std::vector<int64_t> Shape(const nn::MatmulArgs& a, std::vector<int64_t> dims) {
  if (a.batch > 0) dims.insert(dims.begin(), a.batch);
  return dims;
}

// A copy of t (for shared memory) over `padded`, zero past t's extents.
te::Tensor Copy(const te::Tensor& t, const std::vector<int64_t>& padded,
                const std::vector<int64_t>& extents, const std::string& name) {
  return ZeroPadded(
      padded, extents,
      [&](const std::vector<ir::Var>& i) { return t(std::vector<ir::Expr>(i.begin(), i.end())); },
      name);
}

absl::StatusOr<OpProgram> Instantiate(const char* name, bool batched, const search::Config& config,
                                      const OpArgs& args, const target::TargetFacts& facts,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(name, batched, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(name, facts).status());
  const ProductDims dims = Dims(a);
  const ProductTiles tiles = ReadProductTiles(config);
  te::Tensor A = te::placeholder(nn::ShapeExprs(Shape(a, {a.m, a.k})), ir::kFloat32, "A");
  te::Tensor B = te::placeholder(nn::ShapeExprs(Shape(a, {a.k, a.n})), ir::kFloat32, "B");
  const int64_t rows = tiles.padded_rows(), cols = tiles.padded_cols(), k = tiles.padded_k();
  te::Tensor A_s = Copy(A, Shape(a, {rows, k}), Shape(a, {a.m, a.k}), "A_shared");
  te::Tensor B_s = Copy(B, Shape(a, {k, cols}), Shape(a, {a.k, a.n}), "B_shared");
  const int last = batched ? 2 : 1;
  // v: (b,) i, j.
  ProductTerm term = [&](const std::vector<ir::Var>& v, const ir::Expr& r) {
    if (batched) return A_s(v[0], v[1], r) * B_s(v[0], r, v[2]);
    return A_s(v[0], r) * B_s(r, v[1]);
  };
  ProductSums sums = MakeProductSums(dims, tiles, term, "matmul_acc");
  te::Tensor out = te::compute(
      nn::ShapeExprs(Shape(a, {a.m, a.n})),
      [&](const std::vector<ir::Var>& i) {
        return sums.acc(std::vector<ir::Expr>(i.begin(), i.end()));
      },
      batched ? "batch_matmul" : "matmul");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(p.schedule[out].compute_inline());
  TESSEL_RETURN_IF_ERROR(
      ScheduleProduct(p.schedule, stored.op(), sums, {{A_s, last}, {B_s, last}}, dims, tiles));
  p.args = {A, B, stored};
  p.flops = 2.0 * std::max<int64_t>(a.batch, 1) * a.m * a.n * a.k;
  p.logical_inputs = {{"A", Shape(a, {a.m, a.k})}, {"B", Shape(a, {a.k, a.n})}};
  p.logical_outputs = {{"out", Shape(a, {a.m, a.n})}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeTemplate(const char* name, bool batched) {
  Template t;
  t.name = name;
  t.op = batched ? "batch_matmul" : "matmul";
  t.summary = batched ? "batch_matmul on a GPU: shared-memory tiles, register sums, batch on z"
                      : "matmul on a GPU: shared-memory tiles, register sums";
  t.space = [name, batched](
                const OpArgs& args,
                const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(name, batched, args));
    TESSEL_RETURN_IF_ERROR(RequireGpu(name, facts).status());
    search::ConfigSpace space;
    DefineProductKnobs(space, Dims(a), facts);
    return space;
  };
  t.fallback = [name, batched](const search::ConfigSpace& space, const OpArgs& args,
                               const target::TargetFacts& facts) {
    const nn::MatmulArgs a = *nn::ReadMatmulArgs(name, batched, args);  // space has read them
    return ConfigFromKnobs(space, ProductFallback(Dims(a), facts));
  };
  t.instantiate = [name, batched](const search::Config& config, const OpArgs& args,
                                  const target::TargetFacts& facts) {
    return Instantiate(name, batched, config, args, facts, nullptr);
  };
  t.instantiate_with_tail = [name, batched](const search::Config& config, const OpArgs& args,
                                            const target::TargetFacts& facts,
                                            const OutputTail& tail) {
    return Instantiate(name, batched, config, args, facts, &tail);
  };
  return t;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("gpu", MakeTemplate("matmul.gpu", false));
TESSEL_REGISTER_TEMPLATE("gpu", MakeTemplate("batch_matmul.gpu", true));

}  // namespace tessel::ops::cuda
