// bitserial_conv2d_nhwc.x86: bitserial_conv2d (nn/bitserial.h) as register tiles (matrix_tiles.h)
// of output columns (the tile's rows, tile_y) by output channels (its vectorized columns,
// tile_x), over the reduction (kernel rows, kernel columns, activation bits, weight bits, channel
// words; tile_k splits the words, ann_reduce unrolls the bit loops or not).
//
// Layouts. The program takes the data as it is (NCHW) and makes its bit planes over the channels
// in a stage, one vector of words from one vector of each channel's image row; the planes (8 /
// activation_bits times smaller than the data) are then padded with zeros. The weight's planes,
// in panels of the tile's width of output channels, are made on the host in `prepare` (a
// constant; see dense_template.cc). The program computes NHWC (its vectors run along the output
// channels) and `finish` transposes it to the logical NCHW on the host, as the NCHWc conv2d
// templates unpack their blocked outputs. Operations counted: 2 per logical multiply-add.

#include "compiler/ir/op.h"
#include "compiler/ops/nn/bitserial.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/matrix_tiles.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using nn::Dim;

constexpr char kName[] = "bitserial_conv2d_nhwc.x86";

struct Args {
  nn::Conv2dAttrs conv;
  nn::BitserialBits bits;
};

int64_t FloorPow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

int64_t LargestPow2Dividing(int64_t v, int64_t cap) {
  int64_t p = 1;
  while (p * 2 <= cap && v % (p * 2) == 0) p *= 2;
  return p;
}

absl::StatusOr<Args> ReadArgs(const OpArgs& args) {
  Args a;
  TESSEL_ASSIGN_OR_RETURN(a.conv, nn::ReadPlainConv2dAttrs(kName, args));
  ArgReader r(kName, args);
  TESSEL_ASSIGN_OR_RETURN(a.bits, nn::ReadBitserialBits(r));
  return a;
}

// The channel planes [n, h, bits, words, w]: the loop over a word's 32 bits outside the image
// row, whose vectors read one vector of each channel's row. Vectors of a power of two of
// columns; they need not divide the row, unless the channels leave a partial word (two guards
// in one loop nest would keep loop partitioning from sparing the whole rows).
absl::Status SchedulePlanes(schedule::Schedule& s, const te::Tensor& planes, int64_t channels,
                            const target::TargetFacts& facts) {
  schedule::Stage stage = s[planes];
  const auto* c = planes.op().as<te::ComputeOpNode>();
  const int64_t width = *ir::AsConstInt(c->shape[4]);
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t v =
      channels % 32 == 0 ? std::min(lanes, FloorPow2(width)) : LargestPow2Dividing(width, lanes);
  TESSEL_ASSIGN_OR_RETURN(schedule::Stage::SplitResult x,
                          stage.split(c->axis[4], static_cast<int>(v)));
  TESSEL_RETURN_IF_ERROR(stage.reorder(
      {c->axis[0], c->axis[1], c->axis[2], c->axis[3], c->reduce_axis[0], x.outer, x.inner}));
  if (v > 1) TESSEL_RETURN_IF_ERROR(stage.vectorize(x.inner));
  if (facts.cores > 1) {
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, stage.fuse(c->axis[0], c->axis[1]));
    TESSEL_RETURN_IF_ERROR(stage.parallel(rows));
  }
  return absl::OkStatus();
}

// NHWC [n, h, w, c] int32 -> NCHW [n, c, h, w].
runtime::NDArray NhwcToNchw(const runtime::NDArray& x) {
  const std::vector<int64_t>& s = x.shape();
  runtime::NDArray out = runtime::NDArray::Empty({s[0], s[3], s[1], s[2]}, x.dtype());
  const int32_t* src = x.data<int32_t>();
  int32_t* dst = out.data<int32_t>();
  for (int64_t b = 0; b < s[0]; ++b) {
    for (int64_t y = 0; y < s[1]; ++y) {
      for (int64_t i = 0; i < s[2]; ++i) {
        for (int64_t c = 0; c < s[3]; ++c) {
          dst[((b * s[3] + c) * s[1] + y) * s[2] + i] = src[((b * s[1] + y) * s[2] + i) * s[3] + c];
        }
      }
    }
  }
  return out;
}

search::AnnotateOptions UnrollOrNot() {
  search::AnnotateOptions o;
  o.allowed = {search::Annotation::kNone, search::Annotation::kUnroll};
  return o;
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Args a, ReadArgs(args));
  search::ConfigSpace space;
  DefineMatrixTileKnobs(space, a.conv.ow(), a.conv.oc, nn::BitWords(a.conv.ic), facts);
  space.define_annotate("ann_reduce", 2, UnrollOrNot());
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const Args a = *ReadArgs(args);  // Space has read them
  nlohmann::json knobs = MatrixTileFallback(a.conv.ow(), a.conv.oc, nn::BitWords(a.conv.ic), facts);
  knobs["ann_reduce"] = {"unroll", "unroll"};
  return ConfigFromKnobs(space, knobs);
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(Args a, ReadArgs(args));
  const nn::Conv2dAttrs& cv = a.conv;
  const MatrixTiles t = ReadMatrixTiles(config);
  const int64_t bn = t.cols(), panels = t.padded_n() / bn, words = nn::BitWords(cv.ic);
  const int64_t abits = a.bits.activation_bits, wbits = a.bits.weight_bits;
  const int64_t oh = cv.oh(), ow = cv.ow(), sh = cv.stride[0], sw = cv.stride[1];
  // The padded planes cover what the tiles read: whole row tiles of output columns.
  const int64_t hp = (oh - 1) * sh + cv.kh, wp = (t.padded_m() - 1) * sw + cv.kw;

  te::Tensor data =
      te::placeholder({Dim(cv.n), Dim(cv.ic), Dim(cv.h), Dim(cv.w)}, ir::DataType::UInt(8), "data");
  te::Tensor weight =
      te::placeholder({Dim(panels), Dim(cv.kh), Dim(cv.kw), Dim(wbits), Dim(words), Dim(bn)},
                      ir::DataType::UInt(32), "weight");
  te::Tensor planes = nn::BitpackChannels(data, abits, "data_planes");
  te::Tensor padded = planes;
  if (cv.pad[0] > 0 || cv.pad[1] > 0 || hp > cv.h || wp > cv.w) {
    padded = nn::PadPlanes(planes, hp, wp, cv.pad[0], cv.pad[1], "planes_padded");
  }
  te::Tensor acc = nn::BitserialConvSums(padded, weight, oh, t.padded_m(), t.padded_n(), sh, sw,
                                         "bitserial_acc");
  te::Tensor sums;
  if (!a.bits.unipolar) sums = nn::BitPlaneSums(padded, 2, "plane_sums");
  te::Tensor out = nn::BitserialConvOutput(acc, sums, {cv.n, oh, ow, cv.oc}, cv.kh, cv.kw, sh, sw,
                                           "bitserial_conv2d");

  OpProgram p;
  p.schedule = schedule::create_schedule({out.op()});
  TESSEL_RETURN_IF_ERROR(ScheduleMatrixTiles(p.schedule, out.op(), {acc}, t, facts));
  const std::vector<ir::IterVar>& reduce = acc.op().as<te::ComputeOpNode>()->reduce_axis;
  const std::vector<search::Annotation>& ann = config.annotate("ann_reduce");
  for (int i = 0; i < 2; ++i) {  // reduce[2], reduce[3]: activation and weight bits
    if (ann[i] == search::Annotation::kUnroll) {
      TESSEL_RETURN_IF_ERROR(p.schedule[acc].unroll(reduce[2 + i]));
    }
  }
  TESSEL_RETURN_IF_ERROR(SchedulePlanes(p.schedule, planes, cv.ic, facts));
  if (!te::SameTensor(padded, planes)) {
    TESSEL_RETURN_IF_ERROR(ScheduleCopyStage(p.schedule, padded, facts));
  }
  if (sums.defined()) TESSEL_RETURN_IF_ERROR(ScheduleReductionStage(p.schedule, sums, facts));
  p.args = {data, weight, out};
  p.flops = cv.flops();
  const DLDataType u8{kDLUInt, 8, 1};
  p.logical_inputs = {
      {"data", {cv.n, cv.ic, cv.h, cv.w}, u8, 0, static_cast<double>(int64_t{1} << abits)},
      {"weight", {cv.oc, cv.ic, cv.kh, cv.kw}, u8, 0, static_cast<double>(int64_t{1} << wbits)}};
  p.logical_outputs = {{"out", {cv.n, cv.oc, oh, ow}, DLDataType{kDLInt, 32, 1}}};
  p.prepare = [wbits, bn, panels](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{in[0], nn::BitpackConvWeight(in[1], wbits, bn, panels)};
  };
  p.finish = [](const std::vector<runtime::NDArray>& out)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    return std::vector<runtime::NDArray>{NhwcToNchw(out[0])};
  };
  return p;
}

Template MakeBitserialConv2dTemplate() {
  return Template{kName,
                  "bitserial_conv2d",
                  "bit-serial conv2d: popcounts of channel bit planes in register tiles of "
                  "output columns by output channels (NHWC)",
                  Space,
                  Fallback,
                  Instantiate};
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("cpu", MakeBitserialConv2dTemplate());

}  // namespace tessel::ops::x86
