// dense.mali: dense (data [m, k] times weight [n, k] transposed, plus bias) for Mali-class GPUs.
// Each work-item computes mi x nj outputs, summing k four at a time as float4s:
//   partial[i, j, l] = sum over r4 of data[i, 4 r4 + l] * weight[j, 4 r4 + l]   (l < 4: a float4)
//   out[i, j] = partial[i, j, 0] + ... + partial[i, j, 3] (+ bias[j], + a fused tail)
// the partial sums in registers; no local memory. The weight is padded on the host (`prepare`:
// a constant) to k4 = k rounded up to 4 columns of zeros, so that each of its rows is whole
// float4s; the data is read as it is, its last column index clamped when k is not a multiple of
// 4 (the zero weights cancel what the clamped reads bring).
//
// Knobs: tile_m, tile_n (rows and columns in three: [work-groups, work-items, per work-item],
// powers of two), unroll_k (steps of four columns unrolled together), unroll_max_step and
// unroll_explicit (the unrolling pragmas over the kernel). Filters: work-items per group, float4
// accumulators within half the registers.
#include "compiler/ir/op.h"
#include "compiler/ops/mali/host_pack.h"
#include "compiler/ops/mali/work_group.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::mali {
namespace {

using nn::Axes;
using nn::Dim;
using schedule::Stage;

constexpr char kName[] = "dense.mali";
constexpr int64_t kLanes = 4;

// k rounded up to whole float4 lanes (the weight is zero-padded to it in prepare).
int64_t K4(const nn::DenseArgs& a) { return CeilDiv(a.k, kLanes) * kLanes; }

struct Tiles {
  std::vector<int64_t> m, n;  // [work-groups, work-items, per work-item]
  int64_t unroll_k, max_step, explicit_unroll;
};

Tiles ReadTiles(const search::Config& c) {
  return {c.split("tile_m"), c.split("tile_n"), c.knob("unroll_k"), c.knob("unroll_max_step"),
          c.knob("unroll_explicit")};
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const target::GpuFacts gpu = *facts.gpu;
  using search::SplitPolicy;
  search::ConfigSpace space;
  space.define_split("tile_m", a.m, {.policy = SplitPolicy::kPowerOfTwo, .num_outputs = 3});
  space.define_split("tile_n", a.n, {.policy = SplitPolicy::kPowerOfTwo, .num_outputs = 3});
  space.define_knob("unroll_k", {1, 2, 4, 8});
  space.define_knob("unroll_max_step", {0, 16, 64, 256});
  space.define_knob("unroll_explicit", {0, 1});
  space.AddFilter("work-items per group", [gpu](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.m[1] * t.n[1] <= gpu.max_threads_per_block;
  });
  const int64_t cap = AccumulatorCap(gpu);
  space.AddFilter("accumulators per work-item", [cap](const search::Config& c) {
    const Tiles t = ReadTiles(c);
    return t.m[2] * t.n[2] * kLanes <= cap;
  });
  return space;
}

// Per work-item 1 or 2 rows by 4 columns (fewer where the output is smaller: 32 floats of
// accumulators at most, half a Mali-T860 work-item's registers); 64 work-items a group, along
// the columns first; two steps of four columns unrolled.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::DenseArgs a = *nn::ReadDenseArgs(kName, args);  // Space has read them
  const int64_t threads = std::min<int64_t>(64, FloorPow2(facts.gpu->max_threads_per_block));
  const int64_t cap = AccumulatorCap(*facts.gpu);
  int64_t mi = std::min<int64_t>(2, FloorPow2(a.m)), nj = std::min<int64_t>(4, FloorPow2(a.n));
  while (mi * nj * kLanes > cap && nj > 1) nj /= 2;
  while (mi * nj * kLanes > cap && mi > 1) mi /= 2;
  const int64_t tn = std::min(threads, FloorPow2(a.n / nj));
  const int64_t tm = std::min(threads / tn, FloorPow2(a.m / mi));
  return ConfigFromKnobs(space, {{"tile_m", {CeilDiv(a.m, tm * mi), tm, mi}},
                                 {"tile_n", {CeilDiv(a.n, tn * nj), tn, nj}},
                                 {"unroll_k", 2},
                                 {"unroll_max_step", 256},
                                 {"unroll_explicit", 1}});
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts, const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::DenseArgs a, nn::ReadDenseArgs(kName, args));
  TESSEL_RETURN_IF_ERROR(RequireGpu(kName, facts).status());
  const Tiles t = ReadTiles(config);
  te::Tensor data = te::placeholder({Dim(a.m), Dim(a.k)}, ir::kFloat32, "data");
  te::Tensor weight = te::placeholder({Dim(a.n), Dim(K4(a))}, ir::kFloat32, "weight");
  te::Tensor bias;
  if (a.bias) bias = te::placeholder({Dim(a.n)}, ir::kFloat32, "bias");
  ir::IterVar r4 = te::reduce_axis({Dim(0), Dim(K4(a) / kLanes)}, "r4");
  const int last = static_cast<int>(a.k - 1);
  te::Tensor partial = te::compute(
      {Dim(a.m), Dim(a.n), Dim(kLanes)},
      [&](ir::Var i, ir::Var j, ir::Var l) {
        const ir::Expr r = r4.var() * static_cast<int>(kLanes) + l;
        const ir::Expr column = a.k == K4(a) ? r : ir::min(r, last);
        return te::sum(data(i, column) * weight(j, r), {r4});
      },
      "dense_partial");
  te::Tensor out = te::compute(
      {Dim(a.m), Dim(a.n)},
      [&](ir::Var i, ir::Var j) {
        ir::Expr v = partial(i, j, 0) + partial(i, j, 1) + partial(i, j, 2) + partial(i, j, 3);
        return a.bias ? v + bias(j) : v;
      },
      "dense");
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }

  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  schedule::Schedule& s = p.schedule;
  if (tail != nullptr) TESSEL_RETURN_IF_ERROR(s[out].compute_inline());
  Stage st = s[stored];
  const std::vector<ir::IterVar> o = Axes(stored);
  TESSEL_ASSIGN_OR_RETURN(auto mi, st.split(o[0], Dim(t.m[2])));
  TESSEL_ASSIGN_OR_RETURN(auto nj, st.split(o[1], Dim(t.n[2])));
  TESSEL_ASSIGN_OR_RETURN(WorkGroupLoops wg,
                          BindWorkGroups(st, {mi.outer, nj.outer}, {t.m[1], t.n[1]}));
  TESSEL_RETURN_IF_ERROR(st.reorder({mi.inner, nj.inner}));
  TESSEL_RETURN_IF_ERROR(st.unroll(mi.inner));
  TESSEL_RETURN_IF_ERROR(st.unroll(nj.inner));
  if (t.max_step > 0) {
    TESSEL_RETURN_IF_ERROR(st.pragma(wg.groups[0], "auto_unroll_max_step", Dim(t.max_step)));
    TESSEL_RETURN_IF_ERROR(st.pragma(wg.groups[0], "unroll_explicit", Dim(t.explicit_unroll)));
  }
  // The partial sums in registers: four columns at a time (unroll_k steps unrolled), then the
  // work-item's rows and columns (unrolled), then the four lanes (a float4).
  Stage sums = s[partial];
  TESSEL_RETURN_IF_ERROR(sums.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(sums.compute_at(st, wg.items.back()));
  const std::vector<ir::IterVar>& pa = Axes(partial);
  TESSEL_ASSIGN_OR_RETURN(auto steps, sums.split(r4, Dim(t.unroll_k)));
  TESSEL_RETURN_IF_ERROR(sums.reorder({steps.outer, steps.inner, pa[0], pa[1], pa[2]}));
  TESSEL_RETURN_IF_ERROR(sums.unroll(steps.inner));
  TESSEL_RETURN_IF_ERROR(sums.unroll(pa[0]));
  TESSEL_RETURN_IF_ERROR(sums.unroll(pa[1]));
  TESSEL_RETURN_IF_ERROR(sums.vectorize(pa[2]));

  SetDenseSignature(p, a, data, weight, bias, stored);
  const int64_t k4 = K4(a);
  p.prepare = [k4](const std::vector<runtime::NDArray>& in)
      -> absl::StatusOr<std::vector<runtime::NDArray>> {
    std::vector<runtime::NDArray> out = in;
    out[1] = PadColumns(in[1], k4);
    return out;
  };
  if (tail != nullptr) AppendTailInputs(p, *tail);
  return p;
}

Template MakeDenseTemplate() {
  return TailFusingTemplate(kName, "dense",
                            "dense on Mali GPUs: register tiles summing k as float4s", Space,
                            Fallback, Instantiate);
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("mali", MakeDenseTemplate());

}  // namespace tessel::ops::mali
