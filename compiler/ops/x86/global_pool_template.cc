// global_avg_pool2d.x86 and global_max_pool2d.x86: the mean or maximum of each (n, c) plane of
// NCHW data, as [N, C, 1, 1]. A plane is a contiguous row of H * W elements, reduced in `lanes`
// independent vector chains (lane_reduce.h), planes in parallel; the program takes the data as
// [N, C, H * W] (prepare reshapes). The mean scales each element by
// 1 / (H * W) as it is summed (no extra stage).
//
// Knobs: lanes (chains per plane: one, two or four vector registers), parallel (0 or 1).
// Flops: H * W per output element (one addition or comparison per input element).
//
// A fused tail (instantiate_with_tail; logical index: the output's own) takes the loop over
// planes; each plane's reduction is computed inside it and the tail applied to its one value
// before the store (a scalar per plane: the reduction's H * W elements dominate).
#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/ops/x86/lane_reduce.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::x86 {
namespace {

using schedule::Stage;

struct Plane {
  int64_t n, c, h, w;
};

absl::StatusOr<Plane> ReadPlane(const std::string& name, const OpArgs& args) {
  ArgReader reader(name, args);
  Plane p;
  TESSEL_ASSIGN_OR_RETURN(p.n, reader.Int("n"));
  TESSEL_ASSIGN_OR_RETURN(p.c, reader.Int("c"));
  TESSEL_ASSIGN_OR_RETURN(p.h, reader.Int("h"));
  TESSEL_ASSIGN_OR_RETURN(p.w, reader.Int("w"));
  return p;
}

int64_t Lanes(const target::TargetFacts& facts) { return std::max(facts.lanes(), 4); }

absl::StatusOr<search::ConfigSpace> Space(const std::string& name, const OpArgs& args,
                                          const target::TargetFacts& facts) {
  TESSEL_RETURN_IF_ERROR(ReadPlane(name, args).status());
  search::ConfigSpace space;
  const int64_t lanes = Lanes(facts);
  space.define_knob("lanes", {lanes, 2 * lanes, 4 * lanes});
  space.define_knob("parallel", {0, 1});
  return space;
}

// Two registers of chains for planes of at least four vectors (latency hiding), one otherwise;
// parallel for outputs of several planes and a large input.
search::Config Fallback(const std::string& name, const search::ConfigSpace& space,
                        const OpArgs& args, const target::TargetFacts& facts) {
  const Plane p = *ReadPlane(name, args);
  const int64_t lanes = Lanes(facts);
  const int64_t k = p.h * p.w;
  absl::StatusOr<search::Config> config =
      space.FromJson({{"knobs",
                       {{"lanes", k >= 4 * lanes ? 2 * lanes : lanes},
                        {"parallel", p.n * p.c > 1 && p.n * p.c * k >= 32768 ? 1 : 0}}}});
  TESSEL_CHECK(config.ok()) << config.status().message();
  return *config;
}

// The program, with `tail` fused into its output stage when given.
absl::StatusOr<OpProgram> Instantiate(const std::string& name, bool is_max,
                                      const search::Config& config, const OpArgs& args,
                                      const OutputTail* tail) {
  TESSEL_ASSIGN_OR_RETURN(Plane p, ReadPlane(name, args));
  // The program reads each plane as one row: data reshaped to [N, C, H * W] (prepare copies; a
  // graph compiler's reshape is free). Indexing [N, C, H, W] with k / W and k % W would be the
  // same addresses, but the vectorizer would see a gather.
  const int64_t k = p.h * p.w;
  te::Tensor data = te::placeholder(nn::ShapeExprs({p.n, p.c, k}), ir::kFloat32, "data");
  const ir::Expr scale = ir::FloatImm(ir::kFloat32, 1.0 / static_cast<double>(p.h * p.w));
  LaneReduction r = LaneReduce(
      {p.n, p.c, 1, 1}, k, config.knob("lanes"), is_max ? LaneReducer::kMax : LaneReducer::kSum,
      [&](const std::vector<ir::Expr>& row, const ir::Expr& index) {
        ir::Expr x = data(row[0], row[1], index);
        return is_max ? x : x * scale;
      },
      is_max ? "global_max_pool2d" : "global_avg_pool2d");
  te::Tensor stored = r.result;
  if (tail != nullptr) {
    stored = ApplyTail(r.result, *tail, [](const std::vector<ir::Expr>& i) { return i; });
  }
  OpProgram prog;
  prog.schedule = schedule::create_schedule({stored.op()});
  // The stored stage loops over the planes, fused.
  Stage rs = prog.schedule[stored];
  const auto& a = stored.op().as<te::ComputeOpNode>()->axis;
  TESSEL_ASSIGN_OR_RETURN(ir::IterVar planes, rs.fuse(a[0], a[1]));
  TESSEL_ASSIGN_OR_RETURN(planes, rs.fuse(planes, a[2]));
  TESSEL_ASSIGN_OR_RETURN(planes, rs.fuse(planes, a[3]));
  if (config.knob("parallel") != 0) TESSEL_RETURN_IF_ERROR(rs.parallel(planes));
  if (tail == nullptr) {
    TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(prog.schedule, r, planes));
  } else {
    TESSEL_RETURN_IF_ERROR(prog.schedule[r.result].compute_at(rs, planes));
    TESSEL_RETURN_IF_ERROR(ScheduleLaneReduction(prog.schedule, r));
  }
  prog.args = {data, stored};
  prog.flops = static_cast<double>(p.n * p.c * p.h * p.w);
  prog.logical_inputs = {{"data", {p.n, p.c, p.h, p.w}}};
  prog.logical_outputs = {{"out", {p.n, p.c, 1, 1}}};
  prog.prepare = ReshapeArrays({{p.n, p.c, k}});
  if (tail != nullptr) AppendTailInputs(prog, *tail);
  return prog;
}

Template Make(bool is_max) {
  const std::string op = is_max ? "global_max_pool2d" : "global_avg_pool2d";
  const std::string name = op + ".x86";
  return Template{
      name,
      op,
      absl::StrCat("global ", is_max ? "max" : "average",
                   " pooling: planes in parallel, each in vector lanes"),
      [name](const OpArgs& args, const target::TargetFacts& facts) {
        return Space(name, args, facts);
      },
      [name](const search::ConfigSpace& space, const OpArgs& args,
             const target::TargetFacts& facts) { return Fallback(name, space, args, facts); },
      [name, is_max](const search::Config& config, const OpArgs& args, const target::TargetFacts&) {
        return Instantiate(name, is_max, config, args, nullptr);
      },
      [name, is_max](const search::Config& config, const OpArgs& args, const target::TargetFacts&,
                     const OutputTail& tail) {
        return Instantiate(name, is_max, config, args, &tail);
      }};
}

TESSEL_REGISTER_TEMPLATE("cpu", Make(true));
TESSEL_REGISTER_TEMPLATE("cpu", Make(false));

}  // namespace
}  // namespace tessel::ops::x86
