#include "compiler/driver/compile_model.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_replace.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "compiler/codegen/build.h"
#include "compiler/driver/kernel_config.h"
#include "compiler/driver/kernel_connection.h"
#include "compiler/driver/kernel_groups.h"
#include "compiler/driver/optimize_graph.h"
#include "compiler/graph/node_layout.h"
#include "compiler/graph/passes/alter_layout.h"
#include "compiler/graph/passes/fuse_ops.h"
#include "compiler/graph/passes/plan_memory.h"
#include "compiler/ops/strategy.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::driver {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One distinct task: what it takes to build its kernel.
struct KernelJob {
  const ops::Template* t = nullptr;
  const target::TargetFacts* facts = nullptr;  // the main target's or the offload's
  CompiledKernel kernel;
  std::optional<FusedTail> tail;
  std::vector<int> nodes;  // the master nodes of the steps it computes
  int64_t data_block = 0;  // the block its nodes' data input is held in (0: NCHW)
  ops::OpProgram program;
  ir::PrimFunc func;
  absl::Status status;
  std::string warning;
  bool untuned = false;  // a log was given without a config for the task
};

std::string NodesText(const graph::Graph& g, const std::vector<int>& nodes) {
  std::string text = absl::StrCat("node '", g.nodes[static_cast<size_t>(nodes[0])].name, "'");
  if (nodes.size() > 1) absl::StrAppend(&text, " and ", nodes.size() - 1, " more");
  return text;
}

// Runs fn(0) .. fn(n - 1) on up to `threads` threads (this one included).
void ParallelEach(int n, int threads, const std::function<void(int)>& fn) {
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min(threads, n); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// The job's config (tuned or fallback), program and lowered function; errors and warnings stay
// in the job.
void InstantiateAndLower(const graph::Graph& g, const search::ApplyHistoryBest* log,
                         KernelJob& job) {
  const target::TargetFacts& facts = *job.facts;
  const search::Task& task = job.kernel.task;
  const std::string where = absl::StrCat(NodesText(g, job.nodes), " (", job.t->name,
                                         job.tail ? " with a fused tail" : "", ")");
  auto fail = [&](const absl::Status& s) {
    job.status = absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
  };
  absl::StatusOr<KernelConfig> selected = SelectKernelConfig(*job.t, task, facts, log, where);
  if (!selected.ok()) return fail(selected.status());
  const search::Config fallback = selected->fallback;
  job.kernel.config = ConfigForDataBlock(*job.t, *selected, task.args, facts, job.data_block);
  job.kernel.tuned = selected->tuned;
  absl::StatusOr<const graph::OpDef*> def = graph::FindOpDef(job.t->op);
  job.untuned = selected->untuned && def.ok() && WorthTuning((*def)->pattern, selected->space);
  job.warning = selected->warning;
  auto instantiate = [&](const search::Config& config) {
    return job.tail ? job.t->instantiate_with_tail(config, task.args, facts, job.tail->tail)
                    : job.t->instantiate(config, task.args, facts);
  };
  absl::StatusOr<ops::OpProgram> program = instantiate(job.kernel.config);
  if (!program.ok() && job.kernel.tuned) {
    job.warning = absl::StrCat("the tuned config for ", where, " fails to instantiate (",
                               program.status().message(), "); using the template's fallback");
    job.kernel.config = fallback;
    job.kernel.tuned = false;
    program = instantiate(fallback);
  }
  if (!program.ok()) return fail(program.status());
  job.program = *std::move(program);
  absl::StatusOr<ir::PrimFunc> func =
      transforms::Lower(job.program.schedule, job.program.args, job.kernel.function);
  if (!func.ok()) return fail(func.status());
  job.func = *std::move(func);
}

// The steps (one per kernel group, in order: what runs, on which values) and one job per
// distinct (task, tail), in order of first use; steps[k].kernel is its job.
// The offload's template for a group of one node, where the accelerator takes the node.
const ops::Template* OffloadTemplate(const graph::Graph& g, const graph::passes::FusionGroup& group,
                                     bool has_tail, const nlohmann::json& args,
                                     const target::TargetFacts* offload) {
  if (offload == nullptr || has_tail || group.nodes.size() != 1) return nullptr;
  const graph::Node& node = g.nodes[static_cast<size_t>(group.nodes[0])];
  absl::StatusOr<const ops::Template*> t = ops::SelectTemplate(node.op, args, *offload);
  if (!t.ok() || !(*t)->space(args, *offload).ok()) return nullptr;
  return *t;
}

absl::StatusOr<std::vector<KernelJob>> PlanKernels(const graph::Graph& g,
                                                   const target::TargetFacts& facts,
                                                   const target::TargetFacts* offload,
                                                   const KernelGroups& groups,
                                                   std::vector<CompiledStep>& steps) {
  std::vector<KernelJob> jobs;
  absl::flat_hash_map<std::string, int> by_key;
  for (size_t k = 0; k < groups.plan.groups.size(); ++k) {
    const graph::passes::FusionGroup& group = groups.plan.groups[k];
    const std::optional<FusedTail>& tail = groups.tails[k];
    CompiledStep step;
    step.nodes = group.nodes;
    step.master = groups.leads[k];
    const graph::Node& node = g.nodes[static_cast<size_t>(step.master)];
    step.inputs = node.inputs;
    step.outputs = node.outputs;
    if (tail) {
      step.inputs.insert(step.inputs.end(), tail->inputs.begin(), tail->inputs.end());
      step.outputs = g.nodes[static_cast<size_t>(group.nodes.back())].outputs;
    }
    TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, graph::OpArgsOf(g, node));
    const ops::Template* offloaded = OffloadTemplate(g, group, tail.has_value(), args, offload);
    const target::TargetFacts& on = offloaded ? *offload : facts;
    absl::StatusOr<const ops::Template*> t =
        offloaded ? offloaded : ops::SelectTemplate(node.op, args, facts);
    if (!t.ok()) {
      return absl::Status(t.status().code(), absl::StrCat("node '", node.name, "' (", node.op,
                                                          "): ", t.status().message()));
    }
    search::Task task{.template_name = (*t)->name, .args = std::move(args), .target = on.target};
    const std::string signature = tail ? tail->signature : "";
    TESSEL_ASSIGN_OR_RETURN(const graph::NodeLayout layout, graph::NodeLayoutOf(node.attrs));
    auto [it, inserted] =
        by_key.try_emplace(absl::StrCat(task.Key(), "|", signature, "|", layout.in_block),
                           static_cast<int>(jobs.size()));
    if (inserted) {
      KernelJob job;
      job.t = *t;
      job.facts = &on;
      job.kernel.offloaded = offloaded != nullptr;
      job.data_block = layout.in_block;
      job.kernel.function =
          absl::StrCat("k", jobs.size(), "_", absl::StrReplaceAll((*t)->name, {{".", "_"}}),
                       tail ? "_tail" : "");
      job.kernel.task = std::move(task);
      job.kernel.tail = signature;
      job.tail = tail;
      jobs.push_back(std::move(job));
    }
    jobs[static_cast<size_t>(it->second)].nodes.push_back(step.master);
    step.kernel = it->second;
    steps.push_back(std::move(step));
  }
  return jobs;
}

// Connects every step to its kernel (kernel_connection.h), probing in parallel; steps of one
// kernel reading the same constants share one connection, and a parameter that is a constant as
// it is stays that constant's array.
absl::Status ConnectSteps(const std::vector<KernelJob>& jobs, int threads, CompiledModel& model) {
  const graph::Graph& g = model.graph;
  std::vector<CompiledStep>& steps = model.steps;
  // The distinct (kernel, constants) pairs, each with the first step that has it.
  std::vector<int> connection_of(steps.size());
  std::vector<int> first_step;
  absl::flat_hash_map<std::string, int> by_key;
  for (size_t i = 0; i < steps.size(); ++i) {
    // Constants by value; activations by type (a blocked value connects otherwise).
    std::string key = absl::StrCat(steps[i].kernel);
    for (graph::ValueId v : steps[i].inputs) {
      const bool constant = g.value(v).kind == graph::ValueKind::kConstant;
      absl::StrAppend(&key, constant ? absl::StrCat(",", v) : ",-" + g.type(v).ToString());
    }
    for (graph::ValueId v : steps[i].outputs) absl::StrAppend(&key, ";", g.type(v).ToString());
    auto [it, inserted] = by_key.try_emplace(key, static_cast<int>(first_step.size()));
    if (inserted) first_step.push_back(static_cast<int>(i));
    connection_of[i] = it->second;
  }
  std::vector<absl::StatusOr<KernelConnection>> connections(first_step.size(),
                                                            absl::UnknownError("not run"));
  ParallelEach(static_cast<int>(first_step.size()), threads, [&](int c) {
    const CompiledStep& step = steps[static_cast<size_t>(first_step[static_cast<size_t>(c)])];
    const KernelJob& job = jobs[static_cast<size_t>(step.kernel)];
    std::vector<runtime::NDArray> constants;
    for (graph::ValueId v : step.inputs) {
      const graph::Value& value = g.value(v);
      constants.push_back(value.kind == graph::ValueKind::kConstant ? value.data
                                                                    : runtime::NDArray());
    }
    const std::string what = absl::StrCat(NodesText(g, {step.master}), " (", job.t->name, ")");
    absl::StatusOr<KernelConnection> k = ConnectKernel(job.program, constants, what);
    if (k.ok()) {
      auto types = [&](const std::vector<graph::ValueId>& ids) {
        std::vector<runtime::TensorDesc> out;
        for (graph::ValueId v : ids) out.push_back({g.type(v).shape, g.type(v).dtype});
        return out;
      };
      if (absl::Status s =
              ConnectToValueTypes(*k, types(step.inputs), types(step.outputs), job.program, what);
          !s.ok()) {
        k = s;
      }
    }
    connections[static_cast<size_t>(c)] = std::move(k);
  });

  absl::flat_hash_map<const void*, int> parameter_of;  // by data address
  std::vector<KernelConnection> connected;
  for (size_t c = 0; c < first_step.size(); ++c) {
    if (!connections[c].ok()) return connections[c].status();
    KernelConnection& k = *connections[c];
    for (runtime::KernelArg& arg : k.args) {
      if (arg.source != runtime::KernelArg::Source::kParameter) continue;
      const runtime::NDArray& p = k.parameters[static_cast<size_t>(arg.index)];
      auto [it, inserted] = parameter_of.try_emplace(p.data<void>(), model.parameters.size());
      if (inserted) model.parameters.push_back(p);
      arg.index = it->second;
    }
    connected.push_back(std::move(k));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    CompiledStep& step = steps[i];
    const KernelConnection& k = connected[static_cast<size_t>(connection_of[i])];
    const KernelJob& job = jobs[static_cast<size_t>(step.kernel)];
    step.args = k.args;
    step.results = k.results;
    step.result_mode = k.result_mode;
    step.blocked = k.blocked;
    bool uses_prepare = false;
    for (const runtime::KernelArg& arg : step.args) {
      uses_prepare |= arg.source == runtime::KernelArg::Source::kPrepare;
    }
    if (uses_prepare) step.prepare = job.program.prepare;
    if (step.result_mode == runtime::ResultMode::kFinish) step.finish = job.program.finish;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CompiledModel> Compile(const graph::Graph& g, const target::Target& target,
                                      const search::ApplyHistoryBest* log,
                                      const CompileOptions& options) {
  const Clock::time_point start = Clock::now();
  if (options.threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 0 (0: one per core), got ", options.threads));
  }
  CompiledModel model;
  TESSEL_RETURN_IF_ERROR(graph::Verify(g));
  TESSEL_ASSIGN_OR_RETURN(const target::Target resolved, target::ResolveModelTarget(target));
  TESSEL_ASSIGN_OR_RETURN(model.facts, target::DescribeTarget(resolved));
  if (options.run_threads > 0) model.facts.cores = options.run_threads;
  if (!options.offload.empty()) {
    if (model.facts.gpu) {
      return absl::InvalidArgumentError(absl::StrCat("offloading to '", options.offload,
                                                     "' from a GPU target ('", target.ToString(),
                                                     "'): the main target must be a CPU"));
    }
    TESSEL_ASSIGN_OR_RETURN(const target::Target offload, target::Target::Parse(options.offload));
    TESSEL_ASSIGN_OR_RETURN(model.offload, target::DescribeTarget(offload));
  }
  if (options.optimize_graph) {
    TESSEL_ASSIGN_OR_RETURN(model.graph, OptimizeGraph(g));
    if (options.alter_layout) {
      TESSEL_ASSIGN_OR_RETURN(
          model.graph,
          graph::passes::AlterLayout(
              model.graph, KernelLayoutChooser(model.facts, log, options.follow_data_blocks)));
    }
  } else {
    model.graph = g;
  }
  const graph::Graph& og = model.graph;
  model.stats.optimize = Since(start);

  Clock::time_point phase = Clock::now();
  TESSEL_ASSIGN_OR_RETURN(
      graph::passes::FusionPlan fusion,
      graph::passes::FuseOps(og, {.enabled = options.optimize_graph && options.fuse}));
  TESSEL_ASSIGN_OR_RETURN(KernelGroups groups,
                          PlanKernelGroups(og, fusion, model.facts, options.strided_tail_inputs,
                                           options.fuse_elementwise_groups));
  TESSEL_ASSIGN_OR_RETURN(model.memory, graph::passes::PlanMemory(og, groups.plan));
  if (absl::Status s = graph::passes::CheckMemoryPlan(og, groups.plan, model.memory); !s.ok()) {
    return absl::InternalError(absl::StrCat("memory plan: ", s.message()));
  }
  TESSEL_ASSIGN_OR_RETURN(
      std::vector<KernelJob> jobs,
      PlanKernels(og, model.facts, model.offload ? &*model.offload : nullptr, groups, model.steps));
  model.stats.select = Since(phase);

  phase = Clock::now();
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  model.stats.threads = std::min(threads, std::max(1, static_cast<int>(jobs.size())));
  ParallelEach(static_cast<int>(jobs.size()), threads,
               [&](int i) { InstantiateAndLower(og, log, jobs[static_cast<size_t>(i)]); });
  std::vector<ir::PrimFunc> funcs, offload_funcs;
  // One warning per task without a tuned config (its kernels with and without tails together),
  // where its first kernel is.
  absl::flat_hash_map<std::string, std::vector<int>> untuned_nodes;
  for (const KernelJob& job : jobs) {
    if (!job.untuned) continue;
    std::vector<int>& nodes = untuned_nodes[job.kernel.task.Key()];
    nodes.insert(nodes.end(), job.nodes.begin(), job.nodes.end());
  }
  for (KernelJob& job : jobs) {
    TESSEL_RETURN_IF_ERROR(job.status);
    if (!job.warning.empty()) model.warnings.push_back(job.warning);
    const std::string key = job.kernel.task.Key();
    if (auto it = untuned_nodes.find(key); job.untuned && it != untuned_nodes.end()) {
      std::sort(it->second.begin(), it->second.end());
      const std::vector<std::string> others = log->OtherTargets(job.kernel.task);
      model.warnings.push_back(absl::StrCat(
          "no tuned config for ", NodesText(og, it->second), " (", job.t->name, "), task ", key,
          others.empty()
              ? ""
              : absl::StrCat("; the log has it tuned for '", absl::StrJoin(others, "', '"),
                             "' only, another CPU, whose configs are not applied here"),
          "; using the template's fallback"));
      untuned_nodes.erase(it);
    }
    (job.kernel.offloaded ? offload_funcs : funcs).push_back(job.func);
  }
  if (log == nullptr) {
    model.warnings.push_back(
        "no tuning log given: every kernel uses its template's fallback config");
  }
  model.stats.instantiate = Since(phase);

  phase = Clock::now();
  absl::StatusOr<runtime::Module> module = codegen::Build(funcs, model.facts.target);
  if (!module.ok()) {
    return absl::Status(module.status().code(),
                        absl::StrCat("building the kernels: ", module.status().message()));
  }
  model.module = *std::move(module);
  if (!offload_funcs.empty()) {
    absl::StatusOr<runtime::Module> offloaded =
        codegen::Build(offload_funcs, model.offload->target);
    if (!offloaded.ok()) {
      return absl::Status(
          offloaded.status().code(),
          absl::StrCat("building the offloaded kernels for '", model.offload->target.ToString(),
                       "': ", offloaded.status().message()));
    }
    model.offload_module = *std::move(offloaded);
  }
  model.stats.build = Since(phase);

  phase = Clock::now();
  TESSEL_RETURN_IF_ERROR(ConnectSteps(jobs, threads, model));
  for (KernelJob& job : jobs) model.kernels.push_back(std::move(job.kernel));
  model.stats.parameters = Since(phase);
  model.stats.total = Since(start);
  return model;
}

}  // namespace tessel::driver
