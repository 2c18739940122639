// dense_pack.x86: dense (data [m, k] times weight [n, k] transposed, plus bias) in register tiles
// (matrix_tiles.h) over a repacked weight. The knob pack_weight chooses its layout: 1 (the
// fallback) panels of the tile's width (nn/dense.h), which a tile streams contiguously; 0 the
// plain transpose [k, n] (zero-padded to whole tiles), whose rows a tile reads n apart.
//
// The weight is repacked on the host, in `prepare`, not by a stage of the program: in a network
// it is a constant, which a graph compiler packs once when it compiles the model, so the packing
// is no part of the operator's time (a stage would repack it on every call). The data is an
// activation: when the row tiles do not divide m, a stage pads it with zero rows.
//
// A fused tail (instantiate_with_tail) takes the output stage's loops (the cropped [m, n] result
// with the bias, inlined into it): it reads the register tile's accumulators and stores
// tail(value), columns vectorized. The output is logical, so is its index.

#include "compiler/ir/op.h"
#include "compiler/ops/nn/batch_matmul.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/ops/x86/matrix_tiles.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;

constexpr char kName[] = "dense_pack.x86";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  search::ConfigSpace space;
  DefineMatrixTileKnobs(space, a.m, a.n, a.k, facts);
  space.define_knob("pack_weight", {0, 1});
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::DenseArgs a = *nn::ReadDenseArgs(kName, args);  // Space has read them
  nlohmann::json knobs = MatrixTileFallback(a.m, a.n, a.k, facts);
  knobs["pack_weight"] = 1;
  return ConfigFromKnobs(space, knobs);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const target::TargetFacts& facts,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  const MatrixTiles t = ReadMatrixTiles(config);
  const int64_t bn = t.cols(), panels = t.padded_n() / bn, np = t.padded_n();
  const bool panel_layout = config.knob("pack_weight") == 1;

  te::Tensor data = te::placeholder({Dim(a.m), Dim(a.k)}, ir::kFloat32, "data");
  te::Tensor packed =
      panel_layout ? te::placeholder({Dim(panels), Dim(a.k), Dim(bn)}, ir::kFloat32, "weight")
                   : te::placeholder({Dim(a.k), Dim(np)}, ir::kFloat32, "weight");
  te::Tensor bias;
  if (a.bias) bias = te::placeholder({Dim(a.n)}, ir::kFloat32, "bias");
  te::Tensor rows = data;
  if (t.padded_m() != a.m) rows = nn::PadZeros(data, {t.padded_m(), a.k}, "data_padded");
  te::Tensor acc = panel_layout ? nn::DensePacked(rows, packed, np, "dense_acc")
                                : nn::BatchMatmul(rows, packed, "dense_acc");
  te::Tensor out = nn::CropBias(acc, {a.m, a.n}, bias, "dense");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(p.schedule[out].compute_inline());
  TESSEL_RETURN_IF_ERROR(ScheduleMatrixTiles(p.schedule, stored.op(), {acc}, t, facts));
  if (!te::SameTensor(rows, data)) {
    TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, rows, facts));
  }
  SetDenseSignature(p, a, data, packed, bias, stored);
  p.prepare = [bn, panels, np, panel_layout](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    std::vector<runtime::NDArray> out = in;
    out[1] = panel_layout ? nn::PackRowPanels(in[1], bn, panels) : nn::TransposeRows(in[1], np);
    return out;
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeDenseTemplate() {
  return Template{
      kName,
      "dense",
      "dense in register tiles over a weight packed into panels (AutoTVM's dense_pack)",
      Space,
      Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts) {
        return InstantiateWithTail(config, args, facts, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts& facts,
         const OutputTail& tail) { return InstantiateWithTail(config, args, facts, &tail); }};
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", MakeDenseTemplate());

}  // namespace tessel::ops::x86
