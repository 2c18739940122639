// matmul_tiled.x86 and batch_matmul_tiled.x86: products of two activations (a [(batch,) m, k]
// times b [(batch,) k, n]) in register tiles (matrix_tiles.h).
//
// Both operands are inputs computed at run time, so any repacking is part of the program, and
// the knob pack_b chooses it: 1 copies b into column panels of the tile's width (a stage: each
// tile then streams one contiguous panel, at the price of one pass over b), 0 reads b in place
// (rows n apart; free for small m, where a pass over b costs as much as the product). Reading
// in place needs tiles that divide n (filter "pack_b"), since tiles past n would read outside b.
//
// A fused tail (instantiate_with_tail) takes the output stage's loops (the cropped result,
// inlined into it): it reads the register tile's accumulators and stores tail(value), columns
// vectorized. The output is logical, so is its index.
#include <absl/strings/str_cat.h>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/batch_matmul.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/matrix_tiles.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;

// With the batch axis first when there is one.
std::vector<int64_t> Shape(const nn::MatmulArgs& a, std::vector<int64_t> dims) {
  if (a.batch > 0) dims.insert(dims.begin(), a.batch);
  return dims;
}

std::vector<ir::Expr> Dims(const std::vector<int64_t>& shape) {
  std::vector<ir::Expr> out;
  for (int64_t v : shape) out.push_back(Dim(v));
  return out;
}

// The program of template `name`, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const char* name, bool batched, const search::Config& config,
                                      const OpArgs& args, const target::TargetFacts& facts,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(name, batched, args));
  const MatrixTiles t = ReadMatrixTiles(config);
  const bool pack = config.knob("pack_b") == 1;
  if (!pack && t.padded_n() != a.n) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": pack_b=0 needs column tiles that divide n, config ", config.ToString()));
  }
  te::Tensor A = te::placeholder(Dims(Shape(a, {a.m, a.k})), ir::kFloat32, "A");
  te::Tensor B = te::placeholder(Dims(Shape(a, {a.k, a.n})), ir::kFloat32, "B");
  te::Tensor rows = A;
  if (t.padded_m() != a.m) rows = nn::PadZeros(A, Shape(a, {t.padded_m(), a.k}), "A_padded");
  te::Tensor acc, packed;
  if (pack) {
    packed = nn::PackColumns(B, t.cols(), t.padded_n() / t.cols(), "B_packed");
    acc = nn::BatchMatmulPacked(rows, packed, t.padded_n(), "matmul_acc");
  } else {
    acc = nn::BatchMatmul(rows, B, "matmul_acc");
  }
  te::Tensor out = nn::CropBias(acc, Shape(a, {a.m, a.n}), te::Tensor(), "matmul");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(p.schedule[out].compute_inline());
  TESSEL_RETURN_IF_ERROR(ScheduleMatrixTiles(p.schedule, stored.op(), {acc}, t, facts));
  if (!te::SameTensor(rows, A)) {
    TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, rows, facts));
  }
  if (pack) TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, packed, facts));
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
  t.summary = batched ? "batch_matmul in register tiles, b optionally packed into panels"
                      : "matmul in register tiles, b optionally packed into panels";
  t.space = [name, batched](
                const OpArgs& args,
                const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(nn::MatmulArgs a, nn::ReadMatmulArgs(name, batched, args));
    search::ConfigSpace space;
    DefineMatrixTileKnobs(space, a.m, a.n, a.k, facts);
    space.define_knob("pack_b", {0, 1});
    const int64_t n = a.n;
    space.AddFilter("pack_b", [n](const search::Config& c) {
      return c.knob("pack_b") == 1 || ReadMatrixTiles(c).padded_n() == n;
    });
    return space;
  };
  t.fallback = [name, batched](const search::ConfigSpace& space, const OpArgs& args,
                               const target::TargetFacts& facts) {
    const nn::MatmulArgs a = *nn::ReadMatmulArgs(name, batched, args);  // space has read them
    nlohmann::json knobs = MatrixTileFallback(a.m, a.n, a.k, facts);
    const int64_t cols = knobs["tile_x"][2].get<int64_t>();
    // Packing costs one pass over b; it pays when several row tiles read each panel.
    const bool in_place = a.n % cols == 0 && a.m <= 2 * knobs["tile_y"][2].get<int64_t>();
    knobs["pack_b"] = in_place ? 0 : 1;
    return ConfigFromKnobs(space, knobs);
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

TESSEL_REGISTER_TEMPLATE("cpu", MakeTemplate("matmul_tiled.x86", false));
TESSEL_REGISTER_TEMPLATE("cpu", MakeTemplate("batch_matmul_tiled.x86", true));

}  // namespace tessel::ops::x86
