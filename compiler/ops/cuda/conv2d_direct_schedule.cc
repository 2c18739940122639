#include "compiler/ops/cuda/conv2d_direct_schedule.h"

#include <algorithm>

#include "compiler/ops/cuda/conv2d_gpu_util.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::cuda {
namespace {

using nn::Axes;
using schedule::Stage;

constexpr int64_t kFloatBytes = 4;

std::array<int64_t, 4> Split4(const search::Config& config, const std::string& name) {
  const std::vector<int64_t>& v = config.split(name);
  return {v[0], v[1], v[2], v[3]};
}

}  // namespace

Conv2dDirectKnobs ReadConv2dDirectKnobs(const search::Config& config) {
  Conv2dDirectKnobs k;
  k.f = Split4(config, "tile_f");
  k.y = Split4(config, "tile_y");
  k.x = Split4(config, "tile_x");
  k.rc = config.split("tile_rc")[1];
  k.ry = config.split("tile_ry")[1];
  k.rx = config.split("tile_rx")[1];
  k.auto_unroll_max_step = config.knob("auto_unroll_max_step");
  k.unroll_explicit = config.knob("unroll_explicit") != 0;
  return k;
}

int64_t Conv2dDirectSharedBytes(const nn::Conv2dAttrs& a, const Conv2dDirectKnobs& k) {
  // One tile for the whole block, its vthreads included (bound.cc relaxes shared stages over
  // them).
  const int64_t rows = nn::WindowExtent(k.y[1] * k.y[2] * k.y[3], a.stride[0], k.ry, a.dilation[0]);
  const int64_t cols = nn::WindowExtent(k.x[1] * k.x[2] * k.x[3], a.stride[1], k.rx, a.dilation[1]);
  const int64_t window = k.rc * rows * cols;
  const int64_t weights = k.f[1] * k.f[2] * k.f[3] * k.rc * k.ry * k.rx;
  return (window + weights) * kFloatBytes;
}

void DefineConv2dDirectSpace(search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                             const target::GpuFacts& gpu) {
  const search::SplitOptions four{.policy = search::SplitPolicy::kFactors, .num_outputs = 4};
  const search::SplitOptions two{.policy = search::SplitPolicy::kFactors, .num_outputs = 2};
  space.define_split("tile_f", a.oc / a.groups, four);
  space.define_split("tile_y", a.oh(), four);
  space.define_split("tile_x", a.ow(), four);
  space.define_split("tile_rc", a.ic / a.groups, two);
  space.define_split("tile_ry", a.kh, two);
  space.define_split("tile_rx", a.kw, two);
  space.define_knob("auto_unroll_max_step", {0, 512, 1500});
  space.define_knob("unroll_explicit", {0, 1});
  const int64_t max_threads = gpu.max_threads_per_block;
  const int64_t max_z = gpu.max_block_extents[2];
  space.AddFilter("threads_per_block", [max_threads, max_z](const search::Config& c) {
    const Conv2dDirectKnobs k = ReadConv2dDirectKnobs(c);
    return k.threads() <= max_threads && k.f[2] <= max_z;
  });
  const int64_t max_shared = gpu.shared_memory_per_block;
  space.AddFilter("shared_memory", [a, max_shared](const search::Config& c) {
    return Conv2dDirectSharedBytes(a, ReadConv2dDirectKnobs(c)) <= max_shared;
  });
  space.AddFilter("outputs_per_thread", [](const search::Config& c) {
    return ReadConv2dDirectKnobs(c).outputs_per_thread() <= kMaxOutputsPerThread;
  });
  if (a.groups > 1) {
    // Bound inference gives a block's input window one group's channels only when the block
    // computes all of them (it cannot prove that a smaller channel block stays in one group).
    space.AddFilter("one_block_per_group",
                    [](const search::Config& c) { return ReadConv2dDirectKnobs(c).f[0] == 1; });
  }
}

search::Config Conv2dDirectFallback(const search::ConfigSpace& space, const nn::Conv2dAttrs& a,
                                    const target::GpuFacts& gpu) {
  const int64_t oh = a.oh(), ow = a.ow();
  const int64_t group_oc = a.oc / a.groups;
  const int64_t max_threads = std::min<int64_t>(256, gpu.max_threads_per_block);
  Conv2dDirectKnobs k;
  if (a.groups == 1) {
    // Columns on threadIdx.x (coalesced stores), then rows, then channels, to about 64-256
    // threads.
    const int64_t tx = LargestDivisorAtMost(ow, 16);
    const int64_t ty = LargestDivisorAtMost(oh, std::max<int64_t>(1, 64 / tx));
    const int64_t yi = LargestDivisorAtMost(oh / ty, 2);
    const int64_t tf =
        LargestDivisorAtMost(group_oc, std::min(gpu.max_block_extents[2], max_threads / (tx * ty)));
    const int64_t fi = LargestDivisorAtMost(group_oc / tf, 8);
    k.x = {ow / tx, 1, tx, 1};
    k.y = {oh / (ty * yi), 1, ty, yi};
    k.f = {group_oc / (tf * fi), 1, tf, fi};
  } else {
    // One block per group (the one_block_per_group filter): the group's channels on
    // threadIdx.z first, the rest of the threads over columns and rows.
    const int64_t tf = LargestDivisorAtMost(group_oc, gpu.max_block_extents[2]);
    const int64_t budget = std::max<int64_t>(1, max_threads / tf);
    const int64_t tx = LargestDivisorAtMost(ow, std::min<int64_t>(16, budget));
    const int64_t ty = LargestDivisorAtMost(oh, budget / tx);
    k.x = {ow / tx, 1, tx, 1};
    k.y = {oh / ty, 1, ty, 1};
    k.f = {1, 1, tf, group_oc / tf};
  }
  k.rc = LargestDivisorAtMost(a.ic / a.groups, 8);
  k.ry = a.kh;
  k.rx = a.kw;
  // Shrink the reduction step until the tiles fit: rc first, then the kernel window.
  while (Conv2dDirectSharedBytes(a, k) > gpu.shared_memory_per_block) {
    if (k.rc > 1) {
      k.rc = LargestDivisorAtMost(a.ic / a.groups, k.rc - 1);
    } else if (k.ry > 1) {
      k.ry = LargestDivisorAtMost(a.kh, k.ry - 1);
    } else if (k.rx > 1) {
      k.rx = LargestDivisorAtMost(a.kw, k.rx - 1);
    } else {
      break;  // one channel, one tap: a window of the thread tile alone
    }
  }
  nlohmann::json knobs = {{"tile_f", k.f},
                          {"tile_y", k.y},
                          {"tile_x", k.x},
                          {"tile_rc", {a.ic / a.groups / k.rc, k.rc}},
                          {"tile_ry", {a.kh / k.ry, k.ry}},
                          {"tile_rx", {a.kw / k.rx, k.rx}},
                          {"auto_unroll_max_step", 512},
                          {"unroll_explicit", 1}};
  absl::StatusOr<search::Config> config = space.FromJson({{"knobs", knobs}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

absl::Status ScheduleConv2dDirect(schedule::Schedule& s, const te::Tensor& window,
                                  const te::Tensor& weight, const te::Tensor& out,
                                  const te::Tensor& stored, const Conv2dDirectKnobs& k,
                                  int64_t groups) {
  TESSEL_ASSIGN_OR_RETURN(te::Tensor acc, s.cache_write(out, "local"));
  if (!stored.op().same_as(out.op())) TESSEL_RETURN_IF_ERROR(s[out].compute_inline());
  TESSEL_ASSIGN_OR_RETURN(te::Tensor window_shared, s.cache_read(window, "shared", {acc.op()}));
  TESSEL_ASSIGN_OR_RETURN(te::Tensor weight_shared, s.cache_read(weight, "shared", {acc.op()}));
  TESSEL_RETURN_IF_ERROR(s[window].compute_inline());

  Stage o = s[stored];
  const auto& oa = Axes(stored);  // n, oc, oh, ow
  // With groups, oc = (group, channel in the group) and the tiles are the group's channels', so
  // that a block's window holds the input channels of one group only.
  ir::IterVar batch = oa[0], channel = oa[1];
  if (groups > 1) {
    TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult g, o.split_nparts(oa[1], nn::Dim(groups)));
    TESSEL_ASSIGN_OR_RETURN(batch, o.fuse(oa[0], g.outer));
    channel = g.inner;
  }
  TESSEL_ASSIGN_OR_RETURN(TiledAxis f, SplitFour(o, channel, k.f));
  TESSEL_ASSIGN_OR_RETURN(TiledAxis y, SplitFour(o, oa[2], k.y));
  TESSEL_ASSIGN_OR_RETURN(TiledAxis x, SplitFour(o, oa[3], k.x));
  TESSEL_RETURN_IF_ERROR(
      o.reorder({batch, f.block, y.block, x.block, f.vthread, y.vthread, x.vthread, f.thread,
                 y.thread, x.thread, f.inner, y.inner, x.inner}));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar bz, o.fuse(batch, f.block));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar v, o.fuse(f.vthread, y.vthread));
  TESSEL_ASSIGN_OR_RETURN(v, o.fuse(v, x.vthread));
  TESSEL_RETURN_IF_ERROR(o.bind(bz, "blockIdx.z"));
  TESSEL_RETURN_IF_ERROR(o.bind(y.block, "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(o.bind(x.block, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(o.bind(v, "vthread"));
  TESSEL_RETURN_IF_ERROR(o.bind(f.thread, "threadIdx.z"));
  TESSEL_RETURN_IF_ERROR(o.bind(y.thread, "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(o.bind(x.thread, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "auto_unroll_max_step", nn::Dim(k.auto_unroll_max_step)));
  TESSEL_RETURN_IF_ERROR(o.pragma(bz, "unroll_explicit", nn::Dim(k.unroll_explicit ? 1 : 0)));

  Stage c = s[acc];
  TESSEL_RETURN_IF_ERROR(c.compute_at(o, x.thread));
  const te::ComputeOpNode* op = acc.op().as<te::ComputeOpNode>();
  const auto& ca = op->axis;         // n, oc, oh, ow
  const auto& cr = op->reduce_axis;  // rc, ry, rx
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult rc, c.split(cr[0], nn::Dim(k.rc)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult ry, c.split(cr[1], nn::Dim(k.ry)));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult rx, c.split(cr[2], nn::Dim(k.rx)));
  TESSEL_RETURN_IF_ERROR(c.reorder(
      {rc.outer, ry.outer, rx.outer, rc.inner, ry.inner, rx.inner, ca[0], ca[1], ca[2], ca[3]}));
  for (const te::Tensor& staged : {window_shared, weight_shared}) {
    TESSEL_RETURN_IF_ERROR(s[staged].compute_at(c, rx.outer));
    TESSEL_RETURN_IF_ERROR(CooperativeFetch(s[staged], k.f[2], k.y[2], k.x[2]));
  }
  return absl::OkStatus();
}

}  // namespace tessel::ops::cuda
