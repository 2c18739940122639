#include "compiler/ops/cuda/injective_schedule.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/injective/host_reshape.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"

namespace tessel::ops::cuda {
namespace {

using schedule::Stage;

ir::Expr Int(int64_t v) { return ir::IntImm(ir::kInt32, v); }

// Outputs from this many elements take 4-wide vectors in the fallback: enough blocks remain to
// fill a large GPU (2^18 / (4 * 256) = 256 blocks).
constexpr int64_t kVectorMinElements = int64_t{1} << 18;

}  // namespace

std::vector<int64_t> ThreadsPerBlockValues(const target::GpuFacts& gpu) {
  const int64_t max = std::max(gpu.max_threads_per_block, 1);
  int64_t smallest = 1;
  while (smallest < 32 && smallest * 2 <= max) smallest *= 2;
  std::vector<int64_t> values;
  for (int64_t t = smallest; t <= max; t *= 2) values.push_back(t);
  return values;
}

int64_t DefaultThreadsPerBlock(const target::GpuFacts& gpu) {
  return std::min<int64_t>(256, ThreadsPerBlockValues(gpu).back());
}

void DefineElementKnobs(search::ConfigSpace& space, int64_t elements, const target::GpuFacts& gpu,
                        bool vector_ok) {
  space.define_knob("threads", ThreadsPerBlockValues(gpu));
  space.define_knob("per_thread", {1, 2, 4});
  space.define_knob("vector", vector_ok ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0});
  // A vector needs whole vectors of the output (no guard inside one) and more than one lane.
  space.AddFilter("whole_vectors", [elements](const search::Config& c) {
    return c.knob("vector") == 0 ||
           (c.knob("per_thread") > 1 && elements % c.knob("per_thread") == 0);
  });
}

GpuElementTiling ElementTilingOf(const search::Config& config) {
  return {config.knob("threads"), config.knob("per_thread"), config.knob("vector") != 0};
}

nlohmann::json ElementKnobs(const GpuElementTiling& t) {
  return {{"threads", t.threads}, {"per_thread", t.per_thread}, {"vector", t.vector ? 1 : 0}};
}

te::Tensor LanesView(const te::Tensor& out, int64_t lanes) {
  const std::vector<int64_t> shape = *nn::ConstShape(out, "lanes view");
  const int64_t elements = nn::NumElements(shape);
  TESSEL_CHECK(lanes >= 1 && elements % lanes == 0) << lanes << " lanes of " << elements;
  return te::compute(
      nn::ShapeExprs({elements / lanes, lanes}),
      [&](ir::Var r, ir::Var l) {
        // Row-major: the last axis varies fastest.
        ir::Expr f = r * Int(lanes) + l;
        std::vector<ir::Expr> index(shape.size());
        for (size_t d = shape.size(); d-- > 0;) {
          index[d] = d == 0 ? f : ir::floormod(f, Int(shape[d]));
          f = ir::floordiv(f, Int(shape[d]));
        }
        return out(index);
      },
      out.name() + "_lanes");
}

absl::StatusOr<ir::IterVar> ScheduleElements(schedule::Schedule& s, const te::Tensor& out,
                                             const GpuElementTiling& t) {
  const auto* op = out.op().as<te::ComputeOpNode>();
  TESSEL_CHECK(op != nullptr) << out.name() << " is not a compute";
  Stage stage = s[out];
  std::vector<ir::IterVar> axes = op->axis;
  TESSEL_CHECK(!axes.empty()) << out.name() << " has no axes";
  ir::IterVar lanes;
  if (t.vector) {
    TESSEL_CHECK(axes.size() >= 2 && ir::IsConstInt(op->axis.back()->dom.extent, t.per_thread))
        << out.name() << " is not a view of " << t.per_thread << " lanes";
    lanes = axes.back();
    axes.pop_back();
  }
  ir::IterVar fused = axes[0];
  for (size_t d = 1; d < axes.size(); ++d) {
    TESSEL_ASSIGN_OR_RETURN(fused, stage.fuse(fused, axes[d]));
  }
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult threads, stage.split(fused, Int(t.threads)));
  TESSEL_RETURN_IF_ERROR(stage.bind(threads.inner, "threadIdx.x"));
  if (t.vector) {
    TESSEL_RETURN_IF_ERROR(stage.bind(threads.outer, "blockIdx.x"));
    TESSEL_RETURN_IF_ERROR(stage.vectorize(lanes));
    return lanes;
  }
  if (t.per_thread == 1) {
    TESSEL_RETURN_IF_ERROR(stage.bind(threads.outer, "blockIdx.x"));
    return threads.inner;
  }
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult steps, stage.split(threads.outer, Int(t.per_thread)));
  TESSEL_RETURN_IF_ERROR(stage.reorder({steps.outer, threads.inner, steps.inner}));
  TESSEL_RETURN_IF_ERROR(stage.bind(steps.outer, "blockIdx.x"));
  TESSEL_RETURN_IF_ERROR(stage.unroll(steps.inner));
  return steps.inner;
}

namespace {

// The program of an operator's computes: one kernel, every stage but the stored one inline.
absl::StatusOr<OpProgram> ScheduleInjectiveOp(const std::string& name,
                                              const injective::InjectiveOp& iop,
                                              const GpuElementTiling& tiling) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(iop.output, name));
  const te::Tensor stored = tiling.vector ? LanesView(iop.output, tiling.per_thread) : iop.output;
  OpProgram p;
  p.schedule = schedule::create_schedule({stored.op()});
  // One kernel: every stage but the stored one (root stages included) is computed inline.
  for (const Stage& stage : p.schedule->stages) {
    if (stage->op.as<te::ComputeOpNode>() != nullptr && !stage->op.same_as(stored.op())) {
      TESSEL_RETURN_IF_ERROR(Stage(stage).compute_inline());
    }
  }
  TESSEL_RETURN_IF_ERROR(ScheduleElements(p.schedule, stored, tiling).status());
  p.args = iop.inputs;
  p.args.push_back(stored);
  p.flops = iop.flops_per_element * static_cast<double>(nn::NumElements(shape));
  p.logical_inputs = iop.logical_inputs;
  p.logical_outputs = {injective::LogicalOutput(iop, shape)};
  p.prepare = iop.prepare;
  p.finish = iop.finish;
  if (tiling.vector) {
    // The lanes view back to the builder's output, then the builder's own finish.
    p.finish = [to_output = injective::ReshapeArrays({shape}),
                finish = iop.finish](const std::vector<runtime::NDArray>& out)
        -> absl::StatusOr<std::vector<runtime::NDArray>> {
      TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> reshaped, to_output(out));
      return finish ? finish(reshaped) : reshaped;
    };
  }
  return p;
}

}  // namespace

Template MakeGpuInjectiveTemplate(std::string name, std::string op, std::string summary,
                                  injective::InjectiveBuilder build,
                                  injective::TailedInjectiveBuilder with_tail) {
  auto space = [name, build](
                   const OpArgs& args,
                   const target::TargetFacts& facts) -> absl::StatusOr<search::ConfigSpace> {
    TESSEL_ASSIGN_OR_RETURN(injective::InjectiveOp iop, build(name, args));
    TESSEL_ASSIGN_OR_RETURN(target::GpuFacts gpu, RequireGpu(name, facts));
    TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, nn::ConstShape(iop.output, name));
    search::ConfigSpace space;
    DefineElementKnobs(space, nn::NumElements(shape), gpu);
    return space;
  };
  auto fallback = [name, build](const search::ConfigSpace& space, const OpArgs& args,
                                const target::TargetFacts& facts) {
    absl::StatusOr<injective::InjectiveOp> iop = build(name, args);
    TESSEL_CHECK(iop.ok()) << iop.status().message();
    const std::vector<int64_t> shape = *nn::ConstShape(iop->output, name);
    const int64_t elements = nn::NumElements(shape);
    GpuElementTiling t;
    t.threads = DefaultThreadsPerBlock(*RequireGpu(name, facts));
    // Wide accesses pay where every input is read along the fused index (no division in its
    // address) and the output is large enough to keep every multiprocessor busy without them.
    if (iop->max_inner_axes >= static_cast<int>(shape.size()) && elements % 4 == 0 &&
        elements >= kVectorMinElements) {
      t.per_thread = 4;
      t.vector = true;
    }
    absl::StatusOr<search::Config> config = space.FromJson({{"knobs", ElementKnobs(t)}});
    TESSEL_CHECK(config.ok()) << config.status().message();
    return *config;
  };
  auto instantiate = [name, build](const search::Config& config, const OpArgs& args,
                                   const target::TargetFacts&) -> absl::StatusOr<OpProgram> {
    TESSEL_ASSIGN_OR_RETURN(injective::InjectiveOp iop, build(name, args));
    return ScheduleInjectiveOp(name, iop, ElementTilingOf(config));
  };
  Template t{std::move(name),  std::move(op),       std::move(summary),
             std::move(space), std::move(fallback), std::move(instantiate)};
  if (with_tail) {
    t.instantiate_with_tail = [name = t.name, with_tail](
                                  const search::Config& config, const OpArgs& args,
                                  const target::TargetFacts&,
                                  const OutputTail& tail) -> absl::StatusOr<OpProgram> {
      TESSEL_ASSIGN_OR_RETURN(injective::InjectiveOp iop, with_tail(name, args, &tail));
      GpuElementTiling tiling = ElementTilingOf(config);
      tiling.vector = tiling.vector && iop.output.shape().size() == 1;
      return ScheduleInjectiveOp(name, iop, tiling);
    };
  }
  return t;
}

}  // namespace tessel::ops::cuda
