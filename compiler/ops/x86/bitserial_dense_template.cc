// bitserial_dense_pack.x86: bitserial_dense (nn/bitserial.h) in register tiles (matrix_tiles.h):
// rows of the data times columns of the weight, each tile accumulating popcounts of 32-bit words
// in int32 vectors (one vector popcount per 16 or 8 weight words).
//
// The data's bit planes are a stage of the program (it is an activation), padded with zero rows
// to whole row tiles when needed (the planes are 8 / activation_bits times smaller than the data,
// so this is the cheap place to pad). The weight's planes, packed in panels of the tile's width,
// are made on the host in `prepare` (a constant; see dense_template.cc). Besides the tiles
// (tile_k splits the words), ann_reduce unrolls the loops over activation and weight bits or not.
// Operations counted: 2 per logical multiply-add (m n k of them), as for a dense of that shape.

#include "compiler/ir/op.h"
#include "compiler/ops/nn/bitserial.h"
#include "compiler/ops/nn/dense.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/matrix_tiles.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;

constexpr char kName[] = "bitserial_dense_pack.x86";

struct Args {
  int64_t m, n, k;
  nn::BitserialBits bits;
};

absl::StatusOr<Args> ReadArgs(const OpArgs& args) {
  ArgReader r(kName, args);
  Args a{};
  TESSEL_ASSIGN_OR_RETURN(a.m, r.Int("m"));
  TESSEL_ASSIGN_OR_RETURN(a.n, r.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(a.k, r.Int("k"));
  TESSEL_ASSIGN_OR_RETURN(a.bits, nn::ReadBitserialBits(r));
  return a;
}

int64_t LargestPow2Dividing(int64_t v, int64_t cap) {
  int64_t p = 1;
  while (p * 2 <= cap && v % (p * 2) == 0) p *= 2;
  return p;
}

// The data's planes [m, bits, words]: the loop over a word's 32 bits outside the words, whose
// vectors (as many words as divide evenly, up to a register) each read one vector of data.
absl::Status SchedulePlanes(schedule::Schedule& s, const te::Tensor& planes,
                            const target::TargetFacts& facts) {
  schedule::Stage stage = s[planes];
  const auto* c = planes.op().as<te::ComputeOpNode>();
  const int64_t words = *ir::AsConstInt(c->shape[2]);
  const int64_t v = LargestPow2Dividing(words, std::max(facts.lanes(), 4));
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult w,
                          stage.split(c->axis[2], static_cast<int>(v)));
  TESSEL_RETURN_IF_ERROR(
      stage.reorder({c->axis[0], c->axis[1], c->reduce_axis[0], w.outer, w.inner}));
  if (v > 1) TESSEL_RETURN_IF_ERROR(stage.vectorize(w.inner));
  if (facts.cores > 1) TESSEL_RETURN_IF_ERROR(stage.parallel(c->axis[0]));
  return absl::OkStatus();
}

search::AnnotateOptions UnrollOrNot() {
  search::AnnotateOptions o;
  o.allowed = {search::Annotation::kNone, search::Annotation::kUnroll};
  return o;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Args a, ReadArgs(args));
  search::ConfigSpace space;
  DefineMatrixTileKnobs(space, a.m, a.n, nn::BitWords(a.k), facts);
  space.define_annotate("ann_reduce", 2, UnrollOrNot());
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const Args a = *ReadArgs(args);  // Space has read them
  nlohmann::json knobs = MatrixTileFallback(a.m, a.n, nn::BitWords(a.k), facts);
  knobs["ann_reduce"] = {"unroll", "unroll"};
  return ConfigFromKnobs(space, knobs);
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Args a, ReadArgs(args));
  const MatrixTiles t = ReadMatrixTiles(config);
  const int64_t bn = t.cols(), panels = t.padded_n() / bn, words = nn::BitWords(a.k);
  const int64_t abits = a.bits.activation_bits, wbits = a.bits.weight_bits;

  te::Tensor data = te::placeholder({Dim(a.m), Dim(a.k)}, ir::DataType::UInt(8), "data");
  te::Tensor weight = te::placeholder({Dim(panels), Dim(wbits), Dim(words), Dim(bn)},
                                      ir::DataType::UInt(32), "weight");
  te::Tensor planes = nn::BitpackRows(data, abits, "data_planes");
  te::Tensor rows = planes;
  if (t.padded_m() != a.m) {
    rows = nn::PadZeros(planes, {t.padded_m(), abits, words}, "planes_padded");
  }
  te::Tensor acc = nn::BitserialDenseSums(rows, weight, t.padded_n(), "bitserial_acc");
  te::Tensor sums;
  if (!a.bits.unipolar) sums = nn::BitPlaneSums(planes, 1, "plane_sums");
  te::Tensor out = nn::BitserialDenseOutput(acc, sums, a.m, a.n, "bitserial_dense");

  OpProgram p;
  p.schedule = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleMatrixTiles(p.schedule, out.op(), {acc}, t, facts));
  const std::vector<ir::IterVar>& bit_axes = acc.op().as<te::ComputeOpNode>()->reduce_axis;
  const std::vector<search::Annotation>& ann = config.annotate("ann_reduce");
  for (int i = 0; i < 2; ++i) {
    if (ann[i] == search::Annotation::kUnroll) {
      TESSEL_RETURN_IF_ERROR(p.schedule[acc].unroll(bit_axes[i]));
    }
  }
  TESSEL_RETURN_IF_ERROR(SchedulePlanes(p.schedule, planes, facts));
  if (!te::SameTensor(rows, planes)) {
    TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, rows, facts));
  }
  if (sums.defined()) TESSEL_RETURN_IF_ERROR(ScheduleReductionStage(p.schedule, sums, facts));
  p.args = {data, weight, out};
  p.flops = 2.0 * a.m * a.n * a.k;
  const DLDataType u8{kDLUInt, 8, 1};
  p.logical_inputs = {{"data", {a.m, a.k}, u8, 0, static_cast<double>(int64_t{1} << abits)},
                      {"weight", {a.n, a.k}, u8, 0, static_cast<double>(int64_t{1} << wbits)}};
  p.logical_outputs = {{"out", {a.m, a.n}, DLDataType{kDLInt, 32, 1}}};
  p.prepare = [wbits, bn, panels](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{in[0], nn::BitpackDenseWeight(in[1], wbits, bn, panels)};
  };
  return p;
}

Template MakeBitserialDenseTemplate() {
  return Template{kName,
                  "bitserial_dense",
                  "bit-serial dense: popcounts of bit planes in register tiles, weight planes "
                  "packed into panels",
                  Space,
                  Fallback,
                  Instantiate};
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", MakeBitserialDenseTemplate());

}  // namespace tessel::ops::x86
