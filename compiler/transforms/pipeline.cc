#include "compiler/transforms/pipeline.h"

#include <absl/strings/str_cat.h>

#include <chrono>
#include <functional>
#include <unordered_set>

#include "compiler/arith/stmt_simplify.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/ir/well_formed.h"
#include "compiler/schedule/bound.h"
#include "compiler/schedule/schedule_ops.h"
#include "compiler/support/check.h"
#include "compiler/transforms/inject_double_buffer.h"
#include "compiler/transforms/inject_virtual_thread.h"
#include "compiler/transforms/loop_partition.h"
#include "compiler/transforms/lower_intrinsics.h"
#include "compiler/transforms/storage_flatten.h"
#include "compiler/transforms/storage_rewrite.h"
#include "compiler/transforms/thread_sync.h"
#include "compiler/transforms/unroll.h"
#include "compiler/transforms/vectorize.h"

namespace tessel::transforms {
namespace {

using ir::PrimFunc;
using ir::Stmt;

struct Pass {
  const char* name;
  std::function<absl::StatusOr<PrimFunc>(const PrimFunc&)> run;
};

// A pass that rewrites the body only.
Pass OnBody(const char* name, std::function<absl::StatusOr<Stmt>(const Stmt&)> run) {
  return Pass{name, [run](const PrimFunc& f) -> absl::StatusOr<PrimFunc> {
                absl::StatusOr<Stmt> body = run(f->body);
                if (!body.ok()) return body.status();
                return body->same_as(f->body) ? f : f.WithBody(*body);
              }};
}

std::vector<Pass> Pipeline(const LowerOptions& options) {
  return {
      Pass{"storage_flatten",
           [](const PrimFunc& f) -> absl::StatusOr<PrimFunc> { return StorageFlatten(f); }},
      OnBody("simplify", [](const Stmt& s) -> absl::StatusOr<Stmt> { return arith::Simplify(s); }),
      OnBody("loop_partition",
             [](const Stmt& s) -> absl::StatusOr<Stmt> { return LoopPartition(s); }),
      OnBody("vectorize", [](const Stmt& s) { return Vectorize(s); }),
      OnBody("inject_virtual_thread", [](const Stmt& s) { return InjectVirtualThread(s); }),
      OnBody("inject_double_buffer",
             [](const Stmt& s) -> absl::StatusOr<Stmt> { return InjectDoubleBuffer(s); }),
      Pass{"storage_rewrite",
           [](const PrimFunc& f) -> absl::StatusOr<PrimFunc> { return StorageRewrite(f); }},
      OnBody("unroll",
             [max = options.auto_unroll_max_extent](const Stmt& s) { return Unroll(s, max); }),
      OnBody("thread_sync", [](const Stmt& s) -> absl::StatusOr<Stmt> { return ThreadSync(s); }),
      OnBody("lower_intrinsics",
             [](const Stmt& s) -> absl::StatusOr<Stmt> { return LowerIntrinsics(s); }),
      OnBody("simplify", [](const Stmt& s) -> absl::StatusOr<Stmt> { return arith::Simplify(s); }),
  };
}

// The variables of the arguments' shapes, in order of appearance.
std::vector<ir::Var> ShapeVars(const std::vector<te::Tensor>& args) {
  std::vector<ir::Var> vars;
  std::unordered_set<const ir::VarNode*> seen;
  for (const te::Tensor& t : args) {
    for (const ir::Expr& extent : t.shape()) {
      ir::PreOrderVisit(ir::Evaluate(extent), [&](const ir::Expr& e) {
        const auto* v = e.as<ir::VarNode>();
        if (v && seen.insert(v).second) {
          vars.emplace_back(Ref<const ir::VarNode>(const_cast<ir::VarNode*>(v)));
        }
      });
    }
  }
  return vars;
}

void Verify(const PrimFunc& f, const char* after) {
  absl::Status status = ir::VerifyWellFormed(f);
  TESSEL_CHECK(status.ok()) << "lowering pass " << after
                            << " produced ill-formed IR: " << status.message() << "\n"
                            << ir::ToString(f);
}

// The buffers of a function's tensor arguments: what ScheduleOps writes through, and the
// function's parameters (data pointers) in argument order.
struct Arguments {
  schedule::TensorBuffers buffers;
  std::vector<ir::Var> params;
  std::vector<ir::Buffer> param_buffers;
};

absl::StatusOr<Arguments> DeclareArguments(const schedule::Schedule& schedule,
                                           const std::vector<te::Tensor>& args,
                                           const std::string& name) {
  Arguments a;
  for (const te::Tensor& t : args) {
    if (a.buffers.count(t)) {
      return absl::InvalidArgumentError(
          absl::StrCat("lowering ", name, ": tensor ", t.name(), " is given twice"));
    }
    ir::Buffer b = ir::Buffer::Declare(t.name(), t.shape(), t.dtype());
    a.buffers.emplace(t, b);
    // cache_write replaces a stage's operation; the argument names the one the user declared.
    auto stage = schedule->stage_of.find(t.op().get());
    if (stage != schedule->stage_of.end() && !stage->second->op.same_as(t.op())) {
      a.buffers.emplace(stage->second->op.output(t.value_index()), b);
    }
    a.params.push_back(b->data);
    a.param_buffers.push_back(b);
  }
  return a;
}

}  // namespace

absl::StatusOr<PrimFunc> Lower(const schedule::Schedule& schedule,
                               const std::vector<te::Tensor>& args, const std::string& name,
                               const LowerOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  auto report = [&](const char* pass, const PrimFunc& f, bool changed) {
    if (options.timing) {
      *options.timing
          << pass << ": "
          << std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count()
          << " us\n";
    }
    if (options.dump && changed) *options.dump << "// after " << pass << "\n" << f;
    if (options.verify_each_pass) Verify(f, pass);
    start = Clock::now();
  };

  absl::StatusOr<schedule::BoundMap> bounds = schedule::InferBound(schedule);
  if (!bounds.ok()) return bounds.status();
  if (options.timing) {
    *options.timing
        << "infer_bound: "
        << std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count()
        << " us\n";
    start = Clock::now();
  }

  absl::StatusOr<Arguments> arguments = DeclareArguments(schedule, args, name);
  if (!arguments.ok()) return arguments.status();
  schedule::TensorBuffers& buffers = arguments->buffers;
  std::vector<ir::Var>& params = arguments->params;
  std::vector<ir::Buffer>& param_buffers = arguments->param_buffers;
  for (const ir::Var& v : ShapeVars(args)) params.push_back(v);

  absl::StatusOr<Stmt> nest = schedule::ScheduleOps(schedule, *bounds, buffers);
  if (!nest.ok()) return nest.status();
  PrimFunc func(name, params, param_buffers, *nest);
  report("schedule_ops", func, true);

  for (const Pass& pass : Pipeline(options)) {
    absl::StatusOr<PrimFunc> next = pass.run(func);
    if (!next.ok()) return next.status();
    const bool changed = !next->get()->body.same_as(func->body) || next->get() != func.get();
    func = *next;
    report(pass.name, func, changed);
  }
  return func;
}

absl::StatusOr<PrimFunc> LowerToLoopNest(const schedule::Schedule& schedule,
                                         const std::vector<te::Tensor>& args,
                                         const std::string& name) {
  absl::StatusOr<schedule::BoundMap> bounds = schedule::InferBound(schedule);
  if (!bounds.ok()) return bounds.status();
  absl::StatusOr<Arguments> arguments = DeclareArguments(schedule, args, name);
  if (!arguments.ok()) return arguments.status();
  absl::StatusOr<Stmt> nest = schedule::ScheduleOps(schedule, *bounds, arguments->buffers);
  if (!nest.ok()) return nest.status();
  return PrimFunc(name, arguments->params, arguments->param_buffers, *nest);
}

}  // namespace tessel::transforms
