// lrn.x86: local response normalization (nn/lrn.h) of NCHW data. Rows (n, c, h) in parallel; per
// row the window's square sum is a vector along w accumulated over the `size` channels (each a
// contiguous row of x), then the row is normalized, both in vectors of `vec`.
// Knobs: vec (one or two registers), parallel. Flops: 2 size + 3 per element (pow counted as one).
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ops/nn/lrn.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/vectorize_last.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

constexpr char kName[] = "lrn.x86";

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_RETURN_IF_ERROR(nn::ReadLrnAttrs(ArgReader(kName, args)).status());
  const int64_t lanes = std::max(facts.lanes(), 4);
  search::ConfigSpace space;
  space.define_knob("vec", {lanes, 2 * lanes});
  space.define_knob("parallel", {0, 1});
  return space;
}

search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const nn::LrnAttrs a = *nn::ReadLrnAttrs(ArgReader(kName, args));
  // The window makes every element a few multiply-adds and a power: threads pay off early.
  const bool parallel = a.n * a.c * a.h > 1 && a.n * a.c * a.h * a.w >= 4096;
  absl::StatusOr<search::Config> config = space.FromJson(
      {{"knobs", {{"vec", std::max(facts.lanes(), 4)}, {"parallel", parallel ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts&) {
  TESSEL_ASSIGN_OR_RETURN(const nn::LrnAttrs a, nn::ReadLrnAttrs(ArgReader(kName, args)));
  const std::vector<int64_t> shape = {a.n, a.c, a.h, a.w};
  te::Tensor x = te::placeholder(nn::ShapeExprs(shape), ir::kFloat32, "x");
  const nn::LrnTensors t = nn::Lrn(x, a);
  OpProgram prog;
  schedule::Schedule& s = prog.schedule;
  s = schedule::create_schedule({t.output.op()});
  const int64_t vec = config.knob("vec");
  const auto& oa = nn::Axes(t.output);
  schedule::Stage out = s[t.output];
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar rows, out.fuse(oa[0], oa[1]));
  TESSEL_ASSIGN_OR_RETURN(rows, out.fuse(rows, oa[2]));
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(out.parallel(rows));
  TESSEL_RETURN_IF_ERROR(VectorizeLast(s, t.output, a.w, vec).status());
  TESSEL_RETURN_IF_ERROR(s[t.square_sum].compute_at(out, rows));
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar outer, VectorizeLast(s, t.square_sum, a.w, vec));
  const ir::IterVar& r = t.square_sum.op().as<te::ComputeOpNode>()->reduce_axis[0];
  TESSEL_RETURN_IF_ERROR(s[t.square_sum].reorder({r, outer}));
  prog.args = {x, t.output};
  prog.flops = static_cast<double>(2 * a.size + 3) * static_cast<double>(a.n * a.c * a.h * a.w);
  prog.logical_inputs = {{"x", shape}};
  prog.logical_outputs = {{"out", shape}};
  return prog;
}

TESSEL_REGISTER_TEMPLATE("cpu", (Template{kName, "lrn",
                                          "local response normalization across channels: rows in "
                                          "parallel, window sums as vectors along w",
                                          Space, Fallback, Instantiate}));

}  // namespace
}  // namespace tessel::ops::x86
