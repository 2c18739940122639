// conv2d_int8.vdla: the int8 convolution (OPERATORS.md: conv2d_int8) on VDLA, the schedule of
// conv2d.h with its tiling as knobs:
//   tile_h         output rows per tile (the divisors of the output height)
//   tile_o         output channel blocks per tile (the divisors of oc / block_out)
//   vthreads       virtual threads the tiles are spread over (1, 2, 4): latency hiding
//   vthread_axis   0: over the row tiles, 1: over the channel tiles (only with vthreads > 1)
//   double_buffer  1: the kernel block in two alternating copies
// A config whose virtual threads do not divide the tiles is filtered out; one whose buffers do
// not fit is a point of the space, which the code generator refuses (naming the buffer): tuning
// records it as such. The fallback is the tile of most GEMMs per byte loaded that fits two virtual
// threads with the kernel double-buffered (conv2d_tiling.h; with `shift`, the tail's buffers
// counted), or the largest tile for one thread, or the smallest tile. (Of the two rules, most work
// per byte gives ResNet-18's C2-C12 15.0 ms in all at 200 MHz against 18.7 ms for the largest tile:
// C10 and C12 run 2x faster, C6 15% and C7 6% slower.)
//
// prepare packs the logical NCHW data and OIHW weight into the accelerator's blocked layouts (and
// reshapes the bias, whose order is already the accelerator's); finish unpacks the output. With
// `shift` (requantize.h) the tail of conv2d.h's Conv2dTail runs on the ALU.
#include <absl/strings/str_cat.h>

#include <cstring>

#include "compiler/ops/logical_op.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/requantize.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/ops/vdla/conv2d.h"
#include "compiler/ops/vdla/conv2d_tiling.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::vdla {
namespace {

using runtime::NDArray;

constexpr char kName[] = "conv2d_int8.vdla";
constexpr DLDataType kInt8{kDLInt, 8, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

// The layer's shape, or why VDLA's schedule cannot compute it.
absl::StatusOr<Conv2dShape> ReadShape(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  TESSEL_RETURN_IF_ERROR(nn::ReadRequantize(kName, args).status());
  if (!facts.vdla) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": needs a vdla target; target '",
                                                   facts.target.ToString(), "' is not one"));
  }
  auto refuse = [](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": ", what));
  };
  if (a.n != 1) return refuse(absl::StrCat("batch 'n' must be 1, got ", a.n));
  if (a.groups != 1) return refuse(absl::StrCat("'groups' must be 1, got ", a.groups));
  if (a.dilation[0] != 1 || a.dilation[1] != 1) return refuse("'dilation' must be [1, 1]");
  if (a.kh != a.kw) return refuse(absl::StrCat("the kernel must be square, got ", a.kh, "x", a.kw));
  if (a.stride[0] != a.stride[1]) return refuse("'stride' must be the same in both dimensions");
  if (a.pad[0] != a.pad[1] || a.pad[0] != a.pad[2] || a.pad[0] != a.pad[3]) {
    return refuse("'pad' must be the same on all four sides");
  }
  const Conv2dShape shape{static_cast<int>(a.ic),    static_cast<int>(a.oc),
                          static_cast<int>(a.h),     static_cast<int>(a.w),
                          static_cast<int>(a.kh),    static_cast<int>(a.stride[0]),
                          static_cast<int>(a.pad[0])};
  if (a.ic % facts.vdla->block_in != 0 || a.oc % facts.vdla->block_out != 0) {
    return refuse(absl::StrCat("channels ", a.ic, " -> ", a.oc,
                               " are not multiples of the accelerator's blocks ",
                               facts.vdla->block_in, " -> ", facts.vdla->block_out));
  }
  return shape;
}

Conv2dTiling ReadTiling(const search::Config& config) {
  return Conv2dTiling{.tile_h = static_cast<int>(config.knob("tile_h")),
                      .tile_o = static_cast<int>(config.knob("tile_o")),
                      .vthreads = static_cast<int>(config.knob("vthreads")),
                      .vthreads_over_channels = config.knob("vthread_axis") == 1,
                      .double_buffer_weights = config.knob("double_buffer") == 1};
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dShape v, ReadShape(args, facts));
  const int64_t blocks = v.o / facts.vdla->block_out;
  search::ConfigSpace space;
  space.define_knob("tile_h", Divisors(v.oh()));
  space.define_knob("tile_o", Divisors(blocks));
  space.define_knob("vthreads", {1, 2, 4});
  space.define_knob("vthread_axis", {0, 1});
  space.define_knob("double_buffer", {0, 1});
  space.AddFilter("virtual threads dividing the tiles", [v, blocks](const search::Config& c) {
    const Conv2dTiling t = ReadTiling(c);
    if (t.vthreads == 1) return !t.vthreads_over_channels;
    const int64_t tiles = t.vthreads_over_channels ? blocks / t.tile_o : v.oh() / t.tile_h;
    return tiles % t.vthreads == 0;
  });
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const Conv2dShape v = *ReadShape(args, facts);  // Space has read them
  const bool tail = args.contains("shift");
  std::optional<Conv2dTiling> t =
      ChooseConv2dTiling(v, *facts.vdla, 2, true, TilingRule::kMostWorkPerByte, tail);
  if (!t) t = ChooseConv2dTiling(v, *facts.vdla, 1, false, TilingRule::kLargestTile, tail);
  if (!t) t = Conv2dTiling{};
  return ConfigFromKnobs(space, TilingKnobs(*t));
}

// NCHW [1, c, h, w] -> [1, c / bi, h, w, 1, bi].
NDArray PackData(const NDArray& x, int bi) {
  const std::vector<int64_t>& s = x.shape();
  const int64_t c = s[1], hw = s[2] * s[3];
  NDArray out = NDArray::Empty({1, c / bi, s[2], s[3], 1, bi}, kInt8);
  const int8_t* in = x.data<int8_t>();
  int8_t* o = out.data<int8_t>();
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t p = 0; p < hw; ++p) o[((ch / bi) * hw + p) * bi + ch % bi] = in[ch * hw + p];
  }
  return out;
}

// OIHW [o, c, k, k] -> [o / bo, c / bi, k, k, bo, bi].
NDArray PackKernel(const NDArray& w, int bi, int bo) {
  const std::vector<int64_t>& s = w.shape();
  const int64_t o = s[0], c = s[1], kk = s[2] * s[3];
  NDArray out = NDArray::Empty({o / bo, c / bi, s[2], s[3], bo, bi}, kInt8);
  const int8_t* in = w.data<int8_t>();
  int8_t* p = out.data<int8_t>();
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t t = 0; t < kk; ++t) {
        p[((((oc / bo) * (c / bi) + ch / bi) * kk + t) * bo + oc % bo) * bi + ch % bi] =
            in[(oc * c + ch) * kk + t];
      }
    }
  }
  return out;
}

// [1, o / bo, oh, ow, 1, bo] -> NCHW [1, o, oh, ow].
NDArray UnpackOut(const NDArray& y) {
  const std::vector<int64_t>& s = y.shape();
  const int64_t bo = s[5], o = s[1] * bo, hw = s[2] * s[3];
  NDArray out = NDArray::Empty({1, o, s[2], s[3]}, kInt8);
  const int8_t* in = y.data<int8_t>();
  int8_t* p = out.data<int8_t>();
  for (int64_t oc = 0; oc < o; ++oc) {
    for (int64_t q = 0; q < hw; ++q) p[oc * hw + q] = in[((oc / bo) * hw + q) * bo + oc % bo];
  }
  return out;
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const Conv2dShape v, ReadShape(args, facts));
  TESSEL_ASSIGN_OR_RETURN(const std::optional<nn::Requantize> requantize,
                          nn::ReadRequantize(kName, args));
  std::optional<Conv2dTail> tail;
  if (requantize) tail = Conv2dTail{.shift = requantize->shift, .relu = requantize->relu};
  const hardware::vdla::Config& c = *facts.vdla;
  TESSEL_ASSIGN_OR_RETURN(Conv2dSchedule s, ScheduleConv2d(v, ReadTiling(config), c, tail));
  OpProgram p;
  p.schedule = s.schedule;
  p.args = s.args;
  p.flops = 2.0 * static_cast<double>(v.macs());
  TESSEL_ASSIGN_OR_RETURN(const nn::Conv2dAttrs attrs, nn::ReadConv2dAttrs(kName, args));
  SetLogicalSignature(p, Conv2dInt8Signature(attrs, tail.has_value()));
  const int bi = c.block_in, bo = c.block_out;
  p.prepare = [bi, bo](const std::vector<NDArray>& in) -> absl::StatusOr<std::vector<NDArray>> {
    std::vector<NDArray> out = {PackData(in[0], bi), PackKernel(in[1], bi, bo)};
    if (in.size() == 3) {  // the bias [o] as [o / bo, 1, bo]: the same order
      NDArray bias = NDArray::Empty({in[2].shape()[0] / bo, 1, bo}, kInt32);
      std::memcpy(bias.data<int32_t>(), in[2].data<int32_t>(), in[2].NumBytes());
      out.push_back(std::move(bias));
    }
    return out;
  };
  p.finish = [](const std::vector<NDArray>& out) -> absl::StatusOr<std::vector<NDArray>> {
    return std::vector<NDArray>{UnpackOut(out[0])};
  };
  return p;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("vdla", (Template{.name = kName,
                                           .op = "conv2d_int8",
                                           .summary = "int8 conv2d on VDLA's GEMM core: tiles, "
                                                      "virtual threads, double-buffered kernels",
                                           .space = Space,
                                           .fallback = Fallback,
                                           .instantiate = Instantiate}));

}  // namespace tessel::ops::vdla
