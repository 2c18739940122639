#include "compiler/ops/cuda/matmul_template_schedule.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::cuda {
namespace {

using nn::Axes;
using nn::Dim;
using schedule::Stage;

constexpr int64_t kFloatBytes = 4;

int64_t FloorPow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Sums one thread keeps in registers: half its registers, at most 64 (the rest hold operands and
// addresses).
int64_t AccumulatorCap(const target::GpuFacts& gpu) {
  return std::max<int64_t>(1, std::min<int64_t>(64, gpu.registers_per_thread / 2));
}

int64_t SharedBytes(const ProductDims& dims, const ProductTiles& t) {
  const int64_t rows = t.m_threads * t.m_inner, cols = t.n_threads * t.n_inner;
  if (t.split_k > 1) return kFloatBytes * rows * dims.gate_extent() * cols * t.split_k;
  return kFloatBytes * t.k_inner * (rows + dims.gate_extent() * cols);
}

const std::vector<ir::IterVar>& ReduceAxes(const te::Tensor& t) {
  return t.op().as<te::ComputeOpNode>()->reduce_axis;
}

// The stage's loops in the given order: the `first` loops, then the rest as they were.
absl::Status MoveToFront(Stage stage, const std::vector<ir::IterVar>& first) {
  std::vector<ir::IterVar> order = first;
  for (const ir::IterVar& leaf : stage->leaf_iter_vars) {
    if (std::none_of(first.begin(), first.end(),
                     [&](const ir::IterVar& f) { return f.same_as(leaf); })) {
      order.push_back(leaf);
    }
  }
  return stage.reorder(order);
}

// The copy's loops fused, its contiguous axis innermost, spread over the block's
// threadIdx.y x threadIdx.x threads (consecutive elements on consecutive threadIdx.x).
absl::Status CooperativeFetch(Stage stage, const StagedTile& tile, int64_t ty, int64_t tx) {
  std::vector<ir::IterVar> axes = Axes(tile.copy);
  std::rotate(axes.begin() + tile.contiguous_axis, axes.begin() + tile.contiguous_axis + 1,
              axes.end());
  TESSEL_RETURN_IF_ERROR(stage.reorder(axes));
  ir::IterVar fused = axes[0];
  for (size_t d = 1; d < axes.size(); ++d) {
    TESSEL_ASSIGN_OR_RETURN(fused, stage.fuse(fused, axes[d]));
  }
  TESSEL_ASSIGN_OR_RETURN(auto x, stage.split(fused, Dim(tx)));
  TESSEL_ASSIGN_OR_RETURN(auto y, stage.split(x.outer, Dim(ty)));
  TESSEL_RETURN_IF_ERROR(stage.bind(y.inner, "threadIdx.y"));
  return stage.bind(x.inner, "threadIdx.x");
}

// The rows' and columns' loops of out split as the tiles say: {blocks, threads, inner} each.
struct OutLoops {
  std::vector<ir::IterVar> m, n;
};

absl::StatusOr<OutLoops> SplitOut(Stage out, const ir::IterVar& i, const ir::IterVar& j,
                                  const ProductTiles& t) {
  OutLoops loops;
  TESSEL_ASSIGN_OR_RETURN(auto mb, out.split(i, Dim(t.m_threads * t.m_inner)));
  TESSEL_ASSIGN_OR_RETURN(auto mt, out.split(mb.inner, Dim(t.m_inner)));
  TESSEL_ASSIGN_OR_RETURN(auto nb, out.split(j, Dim(t.n_threads * t.n_inner)));
  TESSEL_ASSIGN_OR_RETURN(auto nt, out.split(nb.inner, Dim(t.n_inner)));
  loops.m = {mb.outer, mt.outer, mt.inner};
  loops.n = {nb.outer, nt.outer, nt.inner};
  return loops;
}

// The knobs' unrolling pragmas on `loop`: the loops it holds are unrolled within the budget.
absl::Status UnrollWithin(Stage stage, const ir::IterVar& loop, const ProductTiles& t) {
  if (t.unroll_max_step == 0) return absl::OkStatus();
  TESSEL_RETURN_IF_ERROR(stage.pragma(loop, "auto_unroll_max_step", Dim(t.unroll_max_step)));
  return stage.pragma(loop, "unroll_explicit", Dim(t.unroll_explicit));
}

// Unrolls the stage's data-parallel loops that are not bound to threads: a thread's tile, whose
// registers need constant indices.
absl::Status UnrollTile(Stage stage) {
  const std::vector<ir::IterVar> leaves = stage->leaf_iter_vars;
  for (const ir::IterVar& leaf : leaves) {
    if (leaf->type == ir::IterVarType::kCommReduce) continue;
    auto attr = stage->attrs.find(leaf.get());
    if (attr != stage->attrs.end() && attr->second.kind != ir::ForKind::kSerial) continue;
    TESSEL_RETURN_IF_ERROR(stage.unroll(leaf));
  }
  return absl::OkStatus();
}

absl::Status ScheduleTiled(schedule::Schedule& s, Stage out, const OutLoops& o,
                           const ProductSums& sums, const std::vector<StagedTile>& staged,
                           const ProductTiles& t) {
  TESSEL_RETURN_IF_ERROR(out.bind(o.m[0], "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(out.bind(o.n[0], "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(out.bind(o.m[1], "threadIdx.y"));
  TESSEL_RETURN_IF_ERROR(out.bind(o.n[1], "threadIdx.x"));
  // Each k step: the step's tiles copied into shared memory, then ki terms of the thread's sums,
  // the sums' loops unrolled, the ki loop within the unrolling budget (never the steps' loop,
  // which holds the barriers).
  Stage acc = s[sums.acc];
  TESSEL_RETURN_IF_ERROR(acc.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(acc.compute_at(out, o.n[1]));
  TESSEL_ASSIGN_OR_RETURN(auto ks, acc.split(ReduceAxes(sums.acc)[0], Dim(t.k_inner)));
  TESSEL_RETURN_IF_ERROR(MoveToFront(acc, {ks.outer, ks.inner}));
  TESSEL_RETURN_IF_ERROR(UnrollTile(acc));
  TESSEL_RETURN_IF_ERROR(UnrollWithin(acc, ks.inner, t));
  for (const StagedTile& tile : staged) {
    Stage copy = s[tile.copy];
    TESSEL_RETURN_IF_ERROR(copy.set_scope("shared"));
    TESSEL_RETURN_IF_ERROR(copy.compute_at(acc, ks.outer));
    TESSEL_RETURN_IF_ERROR(CooperativeFetch(copy, tile, t.m_threads, t.n_threads));
  }
  return absl::OkStatus();
}

absl::Status ScheduleSplitK(schedule::Schedule& s, Stage out, const OutLoops& o,
                            const ProductSums& sums, const ProductDims& dims,
                            const ProductTiles& t) {
  TESSEL_RETURN_IF_ERROR(out.bind(o.m[0], "blockIdx.y"));
  TESSEL_RETURN_IF_ERROR(out.bind(o.n[0], "blockIdx.x"));
  // The rows' and columns' thread loops have one thread here; bound all the same, they make the
  // block's work one thread region, where thread_sync puts the barrier before the loop adding up
  // the partial sums rather than inside it.
  TESSEL_RETURN_IF_ERROR(out.bind(o.m[1], "threadIdx.z"));
  TESSEL_RETURN_IF_ERROR(out.bind(o.n[1], "threadIdx.y"));
  // Every lane adds up the block's partial sums (acc) and stores the block's outputs. The
  // partial sums are computed in acc's outermost loop, of one iteration (its rows split by their
  // extent): compute_at needs a loop of the stage that reads them.
  Stage acc = s[sums.acc];
  TESSEL_RETURN_IF_ERROR(acc.set_scope("local"));
  TESSEL_RETURN_IF_ERROR(acc.compute_at(out, o.n[1]));
  const size_t rows = dims.batch > 0 ? 1 : 0;
  TESSEL_ASSIGN_OR_RETURN(auto whole, acc.split(Axes(sums.acc)[rows], Dim(t.m_inner)));
  const ir::IterVar& lanes = ReduceAxes(sums.acc)[0];
  TESSEL_RETURN_IF_ERROR(MoveToFront(acc, {whole.outer, lanes}));
  TESSEL_RETURN_IF_ERROR(UnrollTile(acc));
  TESSEL_RETURN_IF_ERROR(UnrollWithin(acc, lanes, t));
  // The block's partial sums in shared memory, each lane's accumulated in registers first.
  TESSEL_ASSIGN_OR_RETURN(te::Tensor local, s.cache_write(sums.partial, "local"));
  Stage partial = s[sums.partial];
  TESSEL_RETURN_IF_ERROR(partial.set_scope("shared"));
  TESSEL_RETURN_IF_ERROR(partial.compute_at(acc, whole.outer));
  const ir::IterVar& lane = Axes(sums.partial).back();
  TESSEL_RETURN_IF_ERROR(MoveToFront(partial, {lane}));
  TESSEL_RETURN_IF_ERROR(partial.bind(lane, "threadIdx.x"));
  TESSEL_RETURN_IF_ERROR(UnrollTile(partial));
  Stage sum = s[local];
  TESSEL_RETURN_IF_ERROR(sum.compute_at(partial, lane));
  const ir::IterVar& steps = ReduceAxes(local)[0];
  TESSEL_RETURN_IF_ERROR(MoveToFront(sum, {steps}));
  TESSEL_RETURN_IF_ERROR(UnrollTile(sum));
  return UnrollWithin(sum, steps, t);
}

}  // namespace

void DefineProductKnobs(search::ConfigSpace& space, const ProductDims& dims,
                        const target::TargetFacts& facts) {
  TESSEL_CHECK(facts.gpu.has_value()) << "product knobs for a target that is not a GPU";
  const target::GpuFacts gpu = *facts.gpu;
  using search::SplitPolicy;
  space.define_split("tile_m", dims.rows, {.policy = SplitPolicy::kPowerOfTwo, .num_outputs = 3});
  space.define_split("tile_n", dims.cols, {.policy = SplitPolicy::kPowerOfTwo, .num_outputs = 3});
  space.define_split("tile_k", dims.k,
                     {.policy = SplitPolicy::kPowerOfTwo, .num_outputs = 2, .max_innermost = 32});
  std::vector<int64_t> splits = {1};
  if (dims.allow_split_k) {
    for (int64_t s = 2; s <= 64 && s <= dims.k && s <= gpu.max_threads_per_block; s *= 2) {
      splits.push_back(s);
    }
  }
  space.define_knob("split_k", splits);
  space.define_knob("unroll_max_step", {0, 16, 64, 512});
  space.define_knob("unroll_explicit", {0, 1});

  space.AddFilter("threads per block", [gpu](const search::Config& c) {
    return ReadProductTiles(c).threads() <= gpu.max_threads_per_block;
  });
  space.AddFilter("shared memory per block", [gpu, dims](const search::Config& c) {
    return SharedBytes(dims, ReadProductTiles(c)) <= gpu.shared_memory_per_block;
  });
  const int64_t cap = AccumulatorCap(gpu);
  space.AddFilter("accumulators per thread", [cap, dims](const search::Config& c) {
    const ProductTiles t = ReadProductTiles(c);
    return t.m_inner * t.n_inner * dims.gate_extent() <= cap;
  });
  // The split-k form: a block is the s lanes of its outputs' sums, which read their operands
  // from global memory (no step through shared memory).
  space.AddFilter("split k form", [](const search::Config& c) {
    const ProductTiles t = ReadProductTiles(c);
    return t.split_k == 1 || (t.k_inner == 1 && t.m_threads == 1 && t.n_threads == 1);
  });
}

nlohmann::json ProductFallback(const ProductDims& dims, const target::TargetFacts& facts) {
  TESSEL_CHECK(facts.gpu.has_value()) << "product fallback for a target that is not a GPU";
  const target::GpuFacts& gpu = *facts.gpu;
  const int64_t threads = std::min<int64_t>(256, FloorPow2(gpu.max_threads_per_block));
  const int64_t cap = AccumulatorCap(gpu), gates = dims.gate_extent();
  const int64_t warp = gpu.warp_size > 1 ? gpu.warp_size : 16;
  ProductTiles t;
  if (dims.allow_split_k && dims.rows <= 4 && dims.k >= 4 * warp) {
    // A block per 1 to 4 columns (more when there are many: fewer, longer blocks).
    t.split_k = std::min(FloorPow2(warp), threads);
    t.m_inner = FloorPow2(dims.rows);
    t.n_inner = std::min<int64_t>(4, std::max<int64_t>(1, FloorPow2(dims.cols / 256)));
    while (t.m_inner * t.n_inner * gates > cap && t.n_inner > 1) t.n_inner /= 2;
    while (t.m_inner * t.n_inner * gates > cap && t.m_inner > 1) t.m_inner /= 2;
  } else {
    // Per thread: 4 x 4 sums (8 rows when there is one column), fewer where the extents or the
    // gates leave less.
    t.m_inner = std::min<int64_t>(dims.cols == 1 ? 8 : 4, FloorPow2(dims.rows));
    t.n_inner = std::min<int64_t>(4, FloorPow2(dims.cols));
    while (t.m_inner * t.n_inner * gates > cap && t.n_inner > 1) t.n_inner /= 2;
    while (t.m_inner * t.n_inner * gates > cap && t.m_inner > 1) t.m_inner /= 2;
    t.m_threads = std::min<int64_t>(16, FloorPow2(dims.rows / t.m_inner));
    t.n_threads = std::min<int64_t>(16, FloorPow2(dims.cols / t.n_inner));
    // Threads one side cannot use go to the other.
    while (t.threads() * 2 <= threads && t.n_threads * 2 * t.n_inner <= dims.cols) {
      t.n_threads *= 2;
    }
    while (t.threads() * 2 <= threads && t.m_threads * 2 * t.m_inner <= dims.rows) {
      t.m_threads *= 2;
    }
    t.k_inner = std::min<int64_t>(16, FloorPow2(dims.k));
    while (SharedBytes(dims, t) > gpu.shared_memory_per_block && t.k_inner > 1) t.k_inner /= 2;
  }
  t.m_threads = std::max<int64_t>(t.m_threads, 1);
  t.n_threads = std::max<int64_t>(t.n_threads, 1);
  const int64_t m_tile = t.m_threads * t.m_inner, n_tile = t.n_threads * t.n_inner;
  return {{"tile_m", {CeilDiv(dims.rows, m_tile), t.m_threads, t.m_inner}},
          {"tile_n", {CeilDiv(dims.cols, n_tile), t.n_threads, t.n_inner}},
          {"tile_k", {CeilDiv(dims.k, t.k_inner), t.k_inner}},
          {"split_k", t.split_k},
          {"unroll_max_step", 512},
          {"unroll_explicit", gpu.warp_size == 1 ? 1 : 0}};
}

ProductTiles ReadProductTiles(const search::Config& config) {
  ProductTiles t;
  const std::vector<int64_t>& m = config.split("tile_m");
  const std::vector<int64_t>& n = config.split("tile_n");
  const std::vector<int64_t>& k = config.split("tile_k");
  t.m_blocks = m[0], t.m_threads = m[1], t.m_inner = m[2];
  t.n_blocks = n[0], t.n_threads = n[1], t.n_inner = n[2];
  t.k_steps = k[0], t.k_inner = k[1];
  t.split_k = config.knob("split_k");
  t.unroll_max_step = config.knob("unroll_max_step");
  t.unroll_explicit = config.knob("unroll_explicit");
  return t;
}

ProductSums MakeProductSums(const ProductDims& dims, const ProductTiles& tiles,
                            const ProductTerm& term, const std::string& name) {
  std::vector<ir::Expr> shape;
  if (dims.batch > 0) shape.push_back(Dim(dims.batch));
  shape.push_back(Dim(tiles.padded_rows()));
  if (dims.gates > 0) shape.push_back(Dim(dims.gates));
  shape.push_back(Dim(tiles.padded_cols()));
  ProductSums sums;
  if (tiles.split_k == 1) {
    ir::IterVar r = te::reduce_axis({Dim(0), Dim(tiles.padded_k())}, "r");
    sums.acc = te::compute(
        shape,
        [&](const std::vector<ir::Var>& index) { return te::sum(term(index, r.var()), {r}); },
        name);
    return sums;
  }
  // Lane t of the s adds the terms r = t, t + s, ... below k of the outputs inside the logical
  // rows and columns.
  const int s = static_cast<int>(tiles.split_k);
  const size_t rows = dims.batch > 0 ? 1 : 0;
  ir::IterVar step = te::reduce_axis({Dim(0), Dim(CeilDiv(dims.k, s))}, "rs");
  std::vector<ir::Expr> partial_shape = shape;
  partial_shape.push_back(Dim(s));
  sums.partial = te::compute(
      partial_shape,
      [&](const std::vector<ir::Var>& v) {
        const std::vector<ir::Var> index(v.begin(), v.end() - 1);
        const ir::Expr r = step.var() * s + v.back();
        const ir::Expr inside = r < static_cast<int>(dims.k) &&
                                index[rows] < static_cast<int>(dims.rows) &&
                                index.back() < static_cast<int>(dims.cols);
        return te::sum(term(index, r), {step}, inside);
      },
      name + "_partial");
  ir::IterVar lane = te::reduce_axis({Dim(0), Dim(s)}, "t");
  sums.acc = te::compute(
      shape,
      [&](const std::vector<ir::Var>& index) {
        std::vector<ir::Expr> at(index.begin(), index.end());
        at.push_back(lane.var());
        return te::sum(sums.partial(at), {lane});
      },
      name);
  return sums;
}

te::Tensor ZeroPadded(const std::vector<int64_t>& padded, const std::vector<int64_t>& extents,
                      const std::function<ir::Expr(const std::vector<ir::Var>&)>& read,
                      const std::string& name) {
  TESSEL_CHECK(padded.size() == extents.size()) << "padded copy " << name;
  return te::compute(
      nn::ShapeExprs(padded),
      [&](const std::vector<ir::Var>& index) {
        ir::Expr inside;
        for (size_t d = 0; d < padded.size(); ++d) {
          if (padded[d] == extents[d]) continue;
          const ir::Expr below = index[d] < static_cast<int>(extents[d]);
          inside = inside.defined() ? (inside && below) : below;
        }
        ir::Expr value = read(index);
        if (!inside.defined()) return value;
        return ir::if_then_else(inside, value, ir::FloatImm(value.dtype(), 0.0));
      },
      name);
}

absl::Status ScheduleProduct(schedule::Schedule& s, const te::Operation& out_op,
                             const ProductSums& sums, const std::vector<StagedTile>& staged,
                             const ProductDims& dims, const ProductTiles& tiles) {
  Stage out = s[out_op];
  const std::vector<ir::IterVar>& axes = out_op.as<te::ComputeOpNode>()->axis;
  const size_t first = dims.batch > 0 ? 1 : 0;
  TESSEL_ASSIGN_OR_RETURN(OutLoops o, SplitOut(out, axes[first], axes[first + 1], tiles));
  std::vector<ir::IterVar> order;
  if (dims.batch > 0) order.push_back(axes[0]);
  order.insert(order.end(), {o.m[0], o.n[0], o.m[1], o.n[1], o.m[2], o.n[2]});
  TESSEL_RETURN_IF_ERROR(out.reorder(order));
  if (dims.batch > 0) TESSEL_RETURN_IF_ERROR(out.bind(axes[0], "blockIdx.z"));
  TESSEL_RETURN_IF_ERROR(out.unroll(o.m[2]));
  TESSEL_RETURN_IF_ERROR(out.unroll(o.n[2]));
  if (tiles.split_k > 1) return ScheduleSplitK(s, out, o, sums, dims, tiles);
  return ScheduleTiled(s, out, o, sums, staged, tiles);
}

}  // namespace tessel::ops::cuda
