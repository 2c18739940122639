#include "compiler/ops/x86/injective_schedule.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <limits>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::x86 {
namespace {

using schedule::Stage;

int64_t Lanes(const target::TargetFacts& facts) { return std::max(facts.lanes(), 4); }

std::vector<int64_t> VecValues(const target::TargetFacts& facts) {
  const int64_t lanes = Lanes(facts);
  std::vector<int64_t> values;
  if (lanes / 2 >= 4) values.push_back(lanes / 2);
  values.push_back(lanes);
  values.push_back(2 * lanes);
  return values;
}

int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= shape[d];
  return p;
}

// Outputs below this many elements run on one thread: a parallel launch costs about as much as
// streaming this much memory.
constexpr int64_t kParallelMinElements = 65536;

// Leading outer axes are fused into one parallel loop until it has this many iterations: enough
// for any core count's static split to balance.
constexpr int64_t kParallelRows = 256;

// Parallel chunks of a loop of ragged tiles without rows: enough for any core count's static
// split to balance.
constexpr int64_t kMaxChunks = 256;

}  // namespace

void DefineInjectiveKnobs(search::ConfigSpace& space, const std::vector<int64_t>& shape,
                          int max_inner_axes, const target::TargetFacts& facts) {
  const int rank = static_cast<int>(shape.size());
  TESSEL_CHECK(max_inner_axes >= 1 && max_inner_axes <= std::max(rank, 1))
      << "max_inner_axes " << max_inner_axes << " for rank " << rank;
  std::vector<int64_t> inner;
  for (int k = 1; k <= max_inner_axes; ++k) inner.push_back(k);
  space.define_knob("inner_axes", inner);
  space.define_knob("vec", VecValues(facts));
  space.define_knob("unroll", {1, 2, 4});
  space.define_knob("parallel", {0, 1});
  // A ragged tile over several fused axes leaves a guard loop partitioning cannot split off
  // (it tests each fused axis's bound through divisions), so the whole inner loop would run
  // scalar: never better than one inner axis.
  space.AddFilter("ragged_fused_inner", [shape](const search::Config& c) {
    const int k = static_cast<int>(c.knob("inner_axes"));
    if (k == 1) return true;
    const int64_t inner = Product(shape, shape.size() - k, shape.size());
    return inner <= c.knob("vec") || inner % (c.knob("vec") * c.knob("unroll")) == 0;
  });
}

InjectiveTiling InjectiveTilingOf(const search::Config& config) {
  InjectiveTiling t;
  t.inner_axes = static_cast<int>(config.knob("inner_axes"));
  t.vec = config.knob("vec");
  t.unroll = config.knob("unroll");
  t.parallel = config.knob("parallel") != 0;
  return t;
}

InjectiveTiling DefaultInjectiveTiling(const std::vector<int64_t>& shape, int max_inner_axes,
                                       const target::TargetFacts& facts) {
  const int rank = static_cast<int>(shape.size());
  const int64_t lanes = Lanes(facts);
  const int64_t total = Product(shape, 0, shape.size());
  InjectiveTiling t;
  t.vec = lanes;
  t.parallel = total >= kParallelMinElements && facts.cores > 1;
  // A rough time per (k, vec): vector instructions, scalar tail elements and a per-row overhead,
  // over the threads the rows (or, without a tail, the tiles) can occupy.
  double best = std::numeric_limits<double>::infinity();
  std::vector<int64_t> vecs = {lanes};
  for (int64_t v : VecValues(facts)) {
    if (v != lanes) vecs.push_back(v);
  }
  for (int k = 1; k <= std::min(max_inner_axes, rank); ++k) {
    const int64_t inner = Product(shape, rank - k, rank);
    const int64_t rows = total / inner;
    for (int64_t vec : vecs) {
      double per_row;
      int64_t units = rows;
      if (inner <= vec) {
        per_row = static_cast<double>((inner + lanes - 1) / lanes);
      } else if (inner % vec == 0) {
        per_row = static_cast<double>(inner / std::min(vec, lanes));
        units = rows * (inner / vec);
      } else if (k == 1) {
        const int64_t bulk = inner / vec * vec;
        if (rows == 1) units = std::min<int64_t>(inner / vec + 1, kMaxChunks);
        // The tail runs as a scalar loop over a whole tile, guarded.
        per_row = static_cast<double>(bulk / std::min(vec, lanes) + (inner - bulk) + vec / 4);
      } else {
        continue;  // rejected by the space's filter
      }
      const double threads =
          t.parallel ? static_cast<double>(std::min<int64_t>(facts.cores, units)) : 1.0;
      const double cost = static_cast<double>(rows) * (per_row + 2) / threads;
      if (cost < best - 1e-9) {
        best = cost;
        t.inner_axes = k;
        t.vec = vec;
      }
    }
  }
  const int64_t inner = Product(shape, rank - t.inner_axes, rank);
  if (inner >= 8 * t.vec && inner % (2 * t.vec) == 0) t.unroll = 2;
  return t;
}

nlohmann::json InjectiveKnobs(const InjectiveTiling& tiling) {
  return {{"inner_axes", tiling.inner_axes},
          {"vec", tiling.vec},
          {"unroll", tiling.unroll},
          {"parallel", tiling.parallel ? 1 : 0}};
}

absl::Status ScheduleInjective(schedule::Schedule& s, const te::Tensor& out,
                               const InjectiveTiling& t) {
  const auto* op = out.op().as<te::ComputeOpNode>();
  TESSEL_CHECK(op != nullptr && !op->is_reduction()) << out.name() << " is not injective";
  const int rank = static_cast<int>(op->axis.size());
  if (rank == 0) return absl::OkStatus();
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(out, "injective schedule"));
  const int k = std::clamp(t.inner_axes, 1, rank);
  Stage stage = s[out];
  ir::IterVar inner = op->axis[rank - k];
  for (int d = rank - k + 1; d < rank; ++d) {
    TESSEL_ASSIGN_OR_RETURN(inner, stage.fuse(inner, op->axis[d]));
  }
  // The rows: the leading outer axes fused until there are kParallelRows of them (or all); the
  // outer axes after those stay serial loops, whose indices need no division by the fused one.
  ir::IterVar rows;
  int fused_outer = 0;
  if (rank > k) {
    rows = op->axis[0];
    int64_t count = shape[0];
    for (fused_outer = 1; fused_outer < rank - k && count < kParallelRows; ++fused_outer) {
      TESSEL_ASSIGN_OR_RETURN(rows, stage.fuse(rows, op->axis[fused_outer]));
      count *= shape[fused_outer];
    }
  }
  const bool serial_outer = fused_outer < rank - k;
  const int64_t extent = Product(shape, rank - k, rank);
  const int64_t tile = t.vec * t.unroll;
  ir::IterVar parallel = rows;
  if (extent <= t.vec) {
    if (extent > 1) TESSEL_RETURN_IF_ERROR(stage.vectorize(inner));
  } else {
    TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult tiles,
                            stage.split(inner, ir::IntImm(ir::kInt32, tile)));
    if (t.unroll > 1) {
      TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult vecs,
                              stage.split(tiles.inner, ir::IntImm(ir::kInt32, t.vec)));
      TESSEL_RETURN_IF_ERROR(stage.unroll(vecs.outer));
      TESSEL_RETURN_IF_ERROR(stage.vectorize(vecs.inner));
    } else {
      TESSEL_RETURN_IF_ERROR(stage.vectorize(tiles.inner));
    }
    // Without a ragged tile no guard needs partitioning, so the tiles may join the rows.
    // Without rows, a ragged loop of tiles runs as chunks in parallel, each a serial loop whose
    // last tile's guard partitioning splits off.
    const int64_t num_tiles = (extent + tile - 1) / tile;
    if (extent % tile == 0 && !serial_outer) {
      if (rows.get() != nullptr) {
        TESSEL_ASSIGN_OR_RETURN(parallel, stage.fuse(rows, tiles.outer));
      } else {
        parallel = tiles.outer;
      }
    } else if (rows.get() == nullptr && t.parallel && num_tiles > 1) {
      TESSEL_ASSIGN_OR_RETURN(
          Stage::SplitResult chunks,
          stage.split_nparts(tiles.outer,
                             ir::IntImm(ir::kInt32, std::min<int64_t>(num_tiles, kMaxChunks))));
      parallel = chunks.outer;
    }
  }
  if (t.parallel && parallel.get() != nullptr) TESSEL_RETURN_IF_ERROR(stage.parallel(parallel));
  return absl::OkStatus();
}

namespace {

// The program of an operator's computes: its stages inlined into the output except the root
// stages, which are computed first; the output scheduled by `tiling`.
absl::StatusOr<OpProgram> ScheduleInjectiveOp(const std::string& name, const InjectiveOp& iop,
                                              const InjectiveTiling& tiling,
                                              const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(iop.output, name));
  OpProgram p;
  p.schedule = schedule::create_schedule({iop.output.op()});
  for (const Stage& stage : p.schedule->stages) {
    if (stage->op.as<te::ComputeOpNode>() == nullptr || stage->op.same_as(iop.output.op())) {
      continue;
    }
    const bool root = std::any_of(iop.root_stages.begin(), iop.root_stages.end(),
                                  [&](const te::Tensor& r) { return r.op().same_as(stage->op); });
    if (!root) TESSEL_RETURN_IF_ERROR(Stage(stage).compute_inline());
  }
  for (const te::Tensor& r : iop.root_stages) {
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> rshape, nn::ConstShape(r, name));
    InjectiveTiling rt = DefaultInjectiveTiling(rshape, static_cast<int>(rshape.size()), facts);
    rt.parallel = false;
    TESSEL_RETURN_IF_ERROR(ScheduleInjective(p.schedule, r, rt));
  }
  TESSEL_RETURN_IF_ERROR(ScheduleInjective(p.schedule, iop.output, tiling));
  p.args = iop.inputs;
  p.args.push_back(iop.output);
  p.flops = iop.flops_per_element * static_cast<double>(nn::NumElements(shape));
  p.logical_inputs = iop.logical_inputs;
  p.logical_outputs = {injective::LogicalOutput(iop, shape)};
  p.prepare = iop.prepare;
  p.finish = iop.finish;
  return p;
}

}  // namespace

Template MakeInjectiveTemplate(std::string name, std::string op, std::string summary,
                               InjectiveBuilder build, TailedInjectiveBuilder with_tail) {
  auto space = [name, build](
                   const OpArgs& args,
                   const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(InjectiveOp iop, build(name, args));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(iop.output, name));
    search::ConfigSpace space;
    DefineInjectiveKnobs(space, shape, iop.max_inner_axes, facts);
    return space;
  };
  auto fallback = [name, build](const search::ConfigSpace& space, const OpArgs& args,
                                const target::TargetFacts& facts) {
    absl::StatusOr<InjectiveOp> iop = build(name, args);
    TESSEL_CHECK(iop.ok()) << iop.status().message();
    const std::vector<int64_t> shape = *nn::ConstShape(iop->output, name);
    absl::StatusOr<search::Config> config = space.FromJson(
        {{"knobs", InjectiveKnobs(DefaultInjectiveTiling(shape, iop->max_inner_axes, facts))}});
    TESSEL_CHECK(config.ok()) << config.status().message();
    return *config;
  };
  auto instantiate = [name, build](const search::Config& config, const OpArgs& args,
                                   const target::TargetFacts& facts) -> absl::StatusOr<OpProgram> {
    TESSEL_ASSIGN_OR_RETURN(InjectiveOp iop, build(name, args));
    return ScheduleInjectiveOp(name, iop, InjectiveTilingOf(config), facts);
  };
  Template t{std::move(name),  std::move(op),       std::move(summary),
             std::move(space), std::move(fallback), std::move(instantiate)};
  if (with_tail) {
    // The tail's inputs may split an axis the operator's own view merges, so the view has more
    // axes; the config's inner_axes then counts from the end of it, as far as the view allows.
    t.instantiate_with_tail = [name = t.name, with_tail](
                                  const search::Config& config, const OpArgs& args,
                                  const target::TargetFacts& facts,
                                  const OutputTail& tail) -> absl::StatusOr<OpProgram> {
      TESSEL_ASSIGN_OR_RETURN(InjectiveOp iop, with_tail(name, args, &tail));
      InjectiveTiling tiling = InjectiveTilingOf(config);
      tiling.inner_axes = std::min(tiling.inner_axes, iop.max_inner_axes);
      return ScheduleInjectiveOp(name, iop, tiling, facts);
    };
  }
  return t;
}

}  // namespace tessel::ops::x86
