// depthwise_conv2d.gpu: conv2d with groups == ic == oc (channel multiplier 1) in NCHW, weight
// [c, 1, kh, kw], as one direct GPU kernel; any stride, padding and dilation. Knobs:
//   tile_c, tile_y, tile_x   3-way splits of c, oh, ow: [block, thread, inner]
//   stage_shared             1: each block first copies its padded input window and its weights
//                            into shared memory, all its threads together (the windows of
//                            neighbouring outputs overlap kh x kw / stride^2 times); 0: every
//                            thread reads the input from global memory (the padding inlined)
//   auto_unroll_max_step     {0, 256, 1500}, unroll_explicit {0, 1}: the Unroll pass's pragmas
// Loop nest: blockIdx.z = (n, c block), blockIdx.y = y block, blockIdx.x = x block,
// threadIdx.z/y/x = the thread parts of c/y/x; each thread accumulates its c x y x x inner
// outputs in "local" memory over the kernel window. A fused tail (instantiate_with_tail) is the
// output stage itself (logical index: the output's own).
#include <absl/strings/str_cat.h>

#include "compiler/ops/cuda/conv2d_gpu_util.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

using nn::Axes;
using schedule::Stage;

constexpr char kName[] = "depthwise_conv2d.gpu";

absl::StatusOr<nn::Conv2dAttrs> ReadAttrs(const OpArgs& args) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, nn::ReadConv2dAttrs(kName, args));
  if (!(a.groups == a.ic && a.oc == a.ic)) {
    return ArgReader(kName, args)
        .Error("a depthwise convolution needs 'groups' == 'ic' == 'oc' (channel multiplier 1)");
  }
  return a;
}

struct Knobs {
  std::array<int64_t, 3> c{}, y{}, x{};  // [block, thread, inner]
  bool stage_shared = true;
  int64_t auto_unroll_max_step = 0;
  bool unroll_explicit = false;

  int64_t threads() const { return c[1] * y[1] * x[1]; }
  int64_t outputs_per_thread() const { return c[2] * y[2] * x[2]; }
};

std::array<int64_t, 3> Split3(const search::Config& config, const std::string& name) {
  const std::vector<int64_t>& v = config.split(name);
  return {v[0], v[1], v[2]};
}

Knobs ReadKnobs(const search::Config& config) {
  Knobs k;
  k.c = Split3(config, "tile_c");
  k.y = Split3(config, "tile_y");
  k.x = Split3(config, "tile_x");
  k.stage_shared = config.knob("stage_shared") != 0;
  k.auto_unroll_max_step = config.knob("auto_unroll_max_step");
  k.unroll_explicit = config.knob("unroll_explicit") != 0;
  return k;
}

// Shared bytes of a block: its channels' input windows and weights (0 without staging).
int64_t SharedBytes(const nn::Conv2dAttrs& a, const Knobs& k) {
  if (!k.stage_shared) return 0;
  const int64_t channels = k.c[1] * k.c[2];
  const int64_t rows = (k.y[1] * k.y[2] - 1) * a.stride[0] + (a.kh - 1) * a.dilation[0] + 1;
  const int64_t cols = (k.x[1] * k.x[2] - 1) * a.stride[1] + (a.kw - 1) * a.dilation[1] + 1;
  return 4 * channels * (rows * cols + a.kh * a.kw);
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(kName, facts));
  search::ConfigSpace space;
  const search::SplitOptions three{.policy = search::SplitPolicy::kFactors, .num_outputs = 3};
  space.define_split("tile_c", a.oc, three);
  space.define_split("tile_y", a.oh(), three);
  space.define_split("tile_x", a.ow(), three);
  space.define_knob("stage_shared", {0, 1});
  space.define_knob("auto_unroll_max_step", {0, 256, 1500});
  space.define_knob("unroll_explicit", {0, 1});
  const int64_t max_threads = gpu.max_threads_per_block;
  const int64_t max_z = gpu.max_block_extents[2];
  space.AddFilter("threads_per_block", [max_threads, max_z](const search::Config& c) {
    const Knobs k = ReadKnobs(c);
    return k.threads() <= max_threads && k.c[1] <= max_z;
  });
  const int64_t max_shared = gpu.shared_memory_per_block;
  space.AddFilter("shared_memory", [a, max_shared](const search::Config& c) {
    return SharedBytes(a, ReadKnobs(c)) <= max_shared;
  });
  space.AddFilter("outputs_per_thread", [](const search::Config& c) {
    return ReadKnobs(c).outputs_per_thread() <= kMaxOutputsPerThread;
  });
  return space;
}

// Columns on threadIdx.x (up to 32: coalesced), rows on threadIdx.y up to about 256 threads
// (the device's limit if lower), one channel per block unless the image is too small to fill
// the threads, then channels on threadIdx.z; 2 rows per thread where they divide, so that each
// thread reuses its window's rows; the window staged in shared memory when it fits.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Conv2dAttrs a = *ReadAttrs(args);
  const target::GpuFacts gpu = *RequireGpu(kName, facts);
  const int64_t max_threads = std::min<int64_t>(256, gpu.max_threads_per_block);
  const int64_t oh = a.oh(), ow = a.ow();
  Knobs k;
  const int64_t tx = LargestDivisorAtMost(ow, std::min<int64_t>(32, max_threads));
  const int64_t yi = LargestDivisorAtMost(oh, 2);
  const int64_t ty = LargestDivisorAtMost(oh / yi, max_threads / tx);
  const int64_t tc =
      LargestDivisorAtMost(a.oc, std::min(gpu.max_block_extents[2], max_threads / (tx * ty)));
  k.c = {a.oc / tc, tc, 1};
  k.y = {oh / (ty * yi), ty, yi};
  k.x = {ow / tx, tx, 1};
  k.stage_shared = SharedBytes(a, k) <= gpu.shared_memory_per_block;
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs",
                       {{"tile_c", k.c},
                        {"tile_y", k.y},
                        {"tile_x", k.x},
                        {"stage_shared", k.stage_shared ? 1 : 0},
                        {"auto_unroll_max_step", 256},
                        {"unroll_explicit", 1}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// (block, thread, inner) of one axis.
struct Tiled {
  ir::IterVar block, thread, inner;
};

absl::StatusOr<Tiled> SplitThree(Stage& stage, const ir::IterVar& axis,
                                 const std::array<int64_t, 3>& parts) {
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult inner, stage.split(axis, nn::Dim(parts[2])));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult thread, stage.split(inner.outer, nn::Dim(parts[1])));
  return Tiled{thread.outer, thread.inner, inner.inner};
}

// `stored`: c.out, or a fused tail over it (c.out is then inlined into it).
absl::Status Apply(schedule::Schedule& s, const nn::Conv2dNchw& c, const te::Tensor& stored,
                   const Knobs& k) {
  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(c.out, "local"));
  if (!stored.op().same_as(c.out.op())) TESSEL_RETURN_IF_ERROR(s[c.out].compute_inline());
  te::Tensor window_shared, weight_shared;
  if (k.stage_shared) {
    TESSEL_ASSIGN_OR_RETURN(window_shared, s.cache_read(c.pad, "shared", {acc.op()}));
    TESSEL_ASSIGN_OR_RETURN(weight_shared, s.cache_read(c.weight, "shared", {acc.op()}));
  }
  TESSEL_RETURN_IF_ERROR(s[c.pad].compute_inline());

  Stage o = s[stored];
  const auto& oa = Axes(stored);  // n, c, oh, ow
  TESSEL_ASSIGN_OR_RETURN(Tiled ch, SplitThree(o, oa[1], k.c));
  TESSEL_ASSIGN_OR_RETURN(Tiled y, SplitThree(o, oa[2], k.y));
  TESSEL_ASSIGN_OR_RETURN(Tiled x, SplitThree(o, oa[3], k.x));
  TESSEL_RETURN_IF_ERROR(o.reorder({oa[0], ch.block, y.block, x.block, ch.thread, y.thread,
                                    x.thread, ch.inner, y.inner, x.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar bz, o.fuse(oa[0], ch.block));
  TESSEL_RETURN_IF_ERROR(o.bind(bz, "blockIdx.z"));
  TESSEL_RETURN_IF_ERROR(o.bind(y.block, "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(o.bind(x.block, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(o.bind(ch.thread, "threadIdx.z"));
  TESSEL_RETURN_IF_ERROR(o.bind(y.thread, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(o.bind(x.thread, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "auto_unroll_max_step", nn::Dim(k.auto_unroll_max_step)));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "unroll_explicit", nn::Dim(k.unroll_explicit ? 1 : 0)));

  Stage cc = s[acc];
  TESSEL_RETURN_IF_ERROR(cc.compute_at(o, x.thread));
  const te::ComputeOpNode* op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = op->axis;         // n, c, oh, ow
  const auto& cr = op->reduce_axis;  // rc (extent 1), ry, rx
  TESSEL_RETURN_IF_ERROR(cc.reorder({cr[0], cr[1], cr[2], ca[0], ca[1], ca[2], ca[3]}));
  if (k.stage_shared) {
    // At the accumulator's outermost loop (rc, of extent 1): the copy covers the block's whole
    // window, since a shared stage's region spans the block's threads.
    for (const te::Tensor& staged : {window_shared, weight_shared}) {
      TESSEL_RETURN_IF_ERROR(s[staged].compute_at(cc, cr[0]));
      TESSEL_RETURN_IF_ERROR(CooperativeFetch(s[staged], k.c[1], k.y[1], k.x[1]));
    }
  }
  return absl::OkStatus();
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> InstantiateWithTail(const search::Config& config, const OpArgs& args,
                                              const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Conv2dAttrs a, ReadAttrs(args));
  nn::Conv2dNchw c = nn::MakeConv2dNchw(a);
  te::Tensor stored = c.out;
  if (tail != nullptr) {
    stored = ApplyTail(c.out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  TESSEL_RETURN_IF_ERROR(Apply(p.schedule, c, stored, ReadKnobs(config)));
  p.args = {c.data, c.weight, stored};
  p.flops = a.flops();
  p.logical_inputs = {{"data", {a.n, a.ic, a.h, a.w}}, {"weight", {a.oc, 1, a.kh, a.kw}}};
  p.logical_outputs = {{"out", {a.n, a.oc, a.oh(), a.ow()}}};
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template Make() {
  return Template{
      kName,
      "conv2d",
      "depthwise conv2d in NCHW on GPUs: channel x row x column tiles over blocks and threads, "
      "the input window in shared memory",
      Space,
      Fallback,
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return InstantiateWithTail(config, args, nullptr);
      },
      [](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
         const OutputTail& tail) { return InstantiateWithTail(config, args, &tail); }};
}

TESSEL_REGISTER_TEMPLATE("gpu", Make());

}  // namespace
}  // namespace tessel::ops::cuda
