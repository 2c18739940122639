// max_pool2d.x86 and avg_pool2d.x86: pooling of NCHW data, vectorized over output columns.
//
// Loop nest: parallel over the fused (n, c) planes; output rows; ow / vec_ow; the window's rows
// and columns; vec_ow output columns, vectorized (the reduction accumulates in the output's
// vector, which LLVM keeps in a register across the unrolled window). The padded input ("pad"
// stage, present when windows leave the input) is computed per plane inside the parallel loop
// (pad_at=1), as one parallel stage before the pooling (pad_at=2), or inlined into the reads
// (pad_at=0: a select and a clamped gather per window element).
//
// With a column stride above 1 the padded input may be stored by column phase (phase_split=1,
// see PhaseSplitPool), which turns the window's strided reads into vector loads.
//
// Knobs: vec_ow (output columns per vector: divisors of ow up to two registers; a ragged
// vector of one register when ow is longer and has no such divisor), unroll_window (0: none,
// 1: the window's columns, 2: rows and columns), pad_at (0, 1, 2; only 1 without a pad stage),
// phase_split (0, 1; only 0 for column stride 1).
// Flops: kh * kw per output element (the window's comparisons or additions).
//
// A fused tail (instantiate_with_tail; logical index: the output's own) takes the loop nest
// above down to the vector of columns, vectorized, and the pooling becomes a producer computed
// inside it: per vector of columns (its window accumulated in a vector register, the tail
// applied before the one store), or, with pad_at=1 and a pad stage, per plane (the padded
// plane and then the pooled plane in scratch memory, as without a tail, the tail a vectorized
// pass over the pooled plane while it is in cache): the padded plane must be computed where
// the pooling is, and a padded plane per vector of columns would pad each element several times.
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/pool_args.h"
#include "compiler/ops/nn/pooling.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::x86 {
namespace {

using nn::Axes;

using schedule::Stage;

// Whether Pool2D will read through a "pad" stage (the windows leave the input).
bool HasPadStage(const nn::Pool2DProblem& p) {
  const auto& a = p.attrs;
  return a.pad[0] > 0 || a.pad[1] > 0 || (p.oh - 1) * a.stride[0] + a.kernel[0] > p.h ||
         (p.ow - 1) * a.stride[1] + a.kernel[1] > p.w;
}

std::vector<int64_t> VecOwValues(int64_t ow, const target::TargetFacts& facts) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  std::vector<int64_t> values;
  for (int64_t v = 1; v <= std::min(ow, 2 * lanes); ++v) {
    if (ow % v == 0) values.push_back(v);
  }
  if (values.back() < lanes / 2 && ow > lanes) values.push_back(lanes);
  return values;
}

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, nn::PoolKind kind,
                                          const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(nn::Pool2DProblem p, nn::ReadPool2D(name, args, kind));
  search::ConfigSpace space;
  space.define_knob("vec_ow", VecOwValues(p.ow, facts));
  space.define_knob("unroll_window", {0, 1, 2});
  const bool strided = p.attrs.stride[1] > 1;
  if (HasPadStage(p) || strided) {
    space.define_knob("pad_at", {0, 1, 2});
  } else {
    space.define_knob("pad_at", {1});
  }
  if (strided) {
    space.define_knob("phase_split", {0, 1});
  } else {
    space.define_knob("phase_split", {0});
  }
  return space;
}

// The widest vector of output columns, unrolling the window's columns when the window is small.
search::Config Fallback(const std::string& name, nn::PoolKind kind,
                        const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::Pool2DProblem p = *nn::ReadPool2D(name, args, kind);
  // The vector with the fewest idle lanes, the longest of those.
  const int64_t lanes = std::max(facts.lanes(), 4);
  int64_t vec = 1;
  double best = 0;
  for (int64_t v : VecOwValues(p.ow, facts)) {
    const double use =
        static_cast<double>(v) / static_cast<double>((v + lanes - 1) / lanes * lanes);
    if (use >= best) best = use, vec = v;
  }
  const int64_t window = p.attrs.kernel[0] * p.attrs.kernel[1];
  // Phases pay when windows overlap (each element read more than once) or a pad stage is
  // written anyway.
  const bool split =
      p.attrs.stride[1] > 1 && (p.attrs.kernel[1] > p.attrs.stride[1] || HasPadStage(p));
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs",
                       {{"vec_ow", vec},
                        {"unroll_window", window <= 9 ? 2 : (p.attrs.kernel[1] <= 4 ? 1 : 0)},
                        {"pad_at", 1},
                        {"phase_split", split ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// Pooling with the padded input stored by column phase, for a column stride sw > 1:
//   pad[n, c, y, q, j] = padded input (y, j * sw + q)
// so that a window column rw of output column x reads pad[..., rw % sw, x + rw / sw]: contiguous
// in x (a vector load) where the padded input itself would be read with stride sw (a gather per
// window element). The stage gathers each input element once instead.
absl::StatusOr<te::Tensor> PhaseSplitPool(const te::Tensor& data, const nn::Pool2DAttrs& attrs) {
  TESSEL_ASSIGN_OR_RETURN(nn::PoolGeometry g, nn::PoolGeometryOf(data, attrs));
  const int64_t sh = attrs.stride[0], sw = attrs.stride[1];
  const ir::Expr sw_e = ir::IntImm(ir::kInt32, sw);
  te::Tensor phases = te::compute(
      nn::ShapeExprs({g.n, g.c, g.ph, sw, (g.pw + sw - 1) / sw}),
      [&](ir::Var i, ir::Var j, ir::Var y, ir::Var q, ir::Var x) {
        return nn::PaddedElement(data, g, attrs, i, j, y, x * sw_e + q);
      },
      "pad");
  ir::IterVar rh = te::reduce_axis({0, ir::IntImm(ir::kInt32, attrs.kernel[0])}, "rh");
  ir::IterVar rw = te::reduce_axis({0, ir::IntImm(ir::kInt32, attrs.kernel[1])}, "rw");
  auto window = [&](ir::Var i, ir::Var j, ir::Var y, ir::Var x) {
    return phases(i, j, y * ir::IntImm(ir::kInt32, sh) + rh, ir::floormod(rw, sw_e),
                  x + ir::floordiv(rw, sw_e));
  };
  const std::vector<ir::Expr> shape = nn::ShapeExprs({g.n, g.c, g.oh, g.ow});
  if (attrs.kind == nn::PoolKind::kMax) {
    return te::compute(
        shape,
        [&](ir::Var i, ir::Var j, ir::Var y, ir::Var x) {
          return te::max(window(i, j, y, x), {rh, rw});
        },
        "max_pool2d");
  }
  return te::compute(
      shape,
      [&](ir::Var i, ir::Var j, ir::Var y, ir::Var x) {
        return te::sum(window(i, j, y, x) * nn::AvgPoolScale(g, attrs, y, x, data.dtype()),
                       {rh, rw});
      },
      "avg_pool2d");
}

// Schedules the padded input ("pad", read by the pooling stage os) per pad_at: inline, per
// plane (computed at os's loop `plane`), or as its own parallel stage.
absl::Status SchedulePad(schedule::Schedule& s, const te::Tensor& pad, int64_t pad_at,
                         const Stage& os, const ir::IterVar& plane) {
  Stage ps = s[pad];
  const auto& pa = Axes(pad);
  switch (pad_at) {
    case 0:
      return ps.compute_inline();
    case 1:
      TESSEL_RETURN_IF_ERROR(ps.compute_at(os, plane));
      return ps.vectorize(pa.back());
    default: {
      ir::IterVar rows = pa[0];
      for (size_t d = 1; d + 1 < pa.size(); ++d) {
        TESSEL_ASSIGN_OR_RETURN(rows, ps.fuse(rows, pa[d]));
      }
      TESSEL_RETURN_IF_ERROR(ps.parallel(rows));
      return ps.vectorize(pa.back());
    }
  }
}

// The padded input the pooling reads, if it is a stage (undefined otherwise).
te::Tensor PadStage(const te::Tensor& out) {
  const std::vector<te::Tensor> reads = out.op()->InputTensors();
  if (!reads.empty() && reads[0].op().as<te::ComputeOpNode>() != nullptr) return reads[0];
  return te::Tensor();
}

// The pooling stage os below its row loop oh: the window's loops outside a vector of vec output
// columns (vectorized). Splits the columns ow by vec unless `split` is false (ow's extent is the
// vector already: os is computed per vector of a consumer).
absl::Status ScheduleWindow(Stage& os, const ir::IterVar& oh, const ir::IterVar& ow, int64_t vec,
                            int unroll_window, bool split) {
  const te::ComputeOpNode* op = os->op.as<te::ComputeOpNode>();
  const auto& window = op->reduce_axis;
  Stage::SplitResult cols{ow, ow};
  if (split) {
    TESSEL_ASSIGN_OR_RETURN(cols, os.split(ow, ir::IntImm(ir::kInt32, vec)));
    TESSEL_RETURN_IF_ERROR(os.reorder({oh, cols.outer, window[0], window[1], cols.inner}));
  } else {
    TESSEL_RETURN_IF_ERROR(os.reorder({oh, window[0], window[1], ow}));
  }
  if (unroll_window >= 2) TESSEL_RETURN_IF_ERROR(os.unroll(window[0]));
  if (unroll_window >= 1) TESSEL_RETURN_IF_ERROR(os.unroll(window[1]));
  return os.vectorize(cols.inner);
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const std::string& name, nn::PoolKind kind,
                                      const search::Config& config, const OpArgs& args,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(nn::Pool2DProblem p, nn::ReadPool2D(name, args, kind));
  te::Tensor data = te::placeholder(nn::ShapeExprs({p.n, p.c, p.h, p.w}), ir::kFloat32, "data");
  te::Tensor out;
  if (config.knob("phase_split") != 0) {
    TESSEL_ASSIGN_OR_RETURN(out, PhaseSplitPool(data, p.attrs));
  } else {
    TESSEL_ASSIGN_OR_RETURN(out, nn::Pool2D(data, p.attrs));
  }
  te::Tensor stored = out;
  if (tail != nullptr) {
    stored = ApplyTail(out, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({stored.op()});
  const int64_t vec = config.knob("vec_ow");
  const int unroll_window = static_cast<int>(config.knob("unroll_window"));
  const int64_t pad_at = config.knob("pad_at");
  const te::Tensor pad = PadStage(out);

  if (tail == nullptr) {
    // The output is the window reduction: planes in parallel, rows, vectors of columns, then the
    // window with the vector of columns innermost (an accumulator LLVM keeps in registers).
    Stage os = s[out];
    const auto& oa = Axes(out);
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar plane, os.fuse(oa[0], oa[1]));
    TESSEL_RETURN_IF_ERROR(ScheduleWindow(os, oa[2], oa[3], vec, unroll_window, true));
    TESSEL_RETURN_IF_ERROR(os.parallel(plane));
    if (pad.defined()) TESSEL_RETURN_IF_ERROR(SchedulePad(s, pad, pad_at, os, plane));
  } else {
    // The tail: planes in parallel, rows, vectors of columns (vectorized).
    Stage ts = s[stored];
    const auto& ta = Axes(stored);
    TESSEL_ASSIGN_OR_RETURN(ir::IterVar plane, ts.fuse(ta[0], ta[1]));
    TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult cols, ts.split(ta[3], ir::IntImm(ir::kInt32, vec)));
    TESSEL_RETURN_IF_ERROR(ts.parallel(plane));
    TESSEL_RETURN_IF_ERROR(ts.vectorize(cols.inner));
    Stage os = s[out];
    const auto& oa = Axes(out);
    if (pad.defined() && pad_at == 1) {
      TESSEL_RETURN_IF_ERROR(os.compute_at(ts, plane));
      TESSEL_RETURN_IF_ERROR(ScheduleWindow(os, oa[2], oa[3], vec, unroll_window, true));
      TESSEL_RETURN_IF_ERROR(SchedulePad(s, pad, pad_at, os, oa[1]));
    } else {
      TESSEL_RETURN_IF_ERROR(os.compute_at(ts, cols.outer));
      TESSEL_RETURN_IF_ERROR(ScheduleWindow(os, oa[2], oa[3], vec, unroll_window, false));
      if (pad.defined()) TESSEL_RETURN_IF_ERROR(SchedulePad(s, pad, pad_at, os, oa[1]));
    }
  }
  prog.args = {data, stored};
  prog.flops = static_cast<double>(p.n * p.c * p.oh * p.ow) *
               static_cast<double>(p.attrs.kernel[0] * p.attrs.kernel[1]);
  prog.logical_inputs = {{"data", {p.n, p.c, p.h, p.w}}};
  prog.logical_outputs = {{"out", {p.n, p.c, p.oh, p.ow}}};
  if (tail != nullptr) AppendTailInputs(prog, *tail);
  return prog;
}

Template Make(nn::PoolKind kind) {
  const std::string op = kind == nn::PoolKind::kMax ? "max_pool2d" : "avg_pool2d";
  const std::string name = op + ".x86";
  return Template{
      name,
      op,
      absl::StrCat(kind == nn::PoolKind::kMax ? "max" : "average",
                   " pooling of NCHW planes in parallel, vectorized over output columns"),
      [name, kind](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, kind, args, facts);
      },
      [name, kind](const search::ConfigSpace& space, const OpArgs& args,
                   const target::TargetFacts& facts) {
        return Fallback(name, kind, space, args, facts);
      },
      [name, kind](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, kind, config, args, nullptr);
      },
      [name, kind](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                   const OutputTail& tail) {
        return Instantiate(name, kind, config, args, &tail);
      }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make(nn::PoolKind::kMax));
TESSEL_REGISTER_TEMPLATE("cpu", Make(nn::PoolKind::kAvg));

}  // namespace
}  // namespace tessel::ops::x86
