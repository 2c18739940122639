#include "compiler/driver/compile_model.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_replace.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "compiler/driver/build.h"
#include "compiler/driver/compile_target.h"
#include "compiler/driver/kernel_connection.h"
#include "compiler/ops/nn/conv2d.h"
#include "compiler/ops/x86/conv2d_strategy.h"
#include "compiler/support/status_macros.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::driver {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The x86 template that computes `op` with these arguments.
absl::StatusOr<const ops::Template*> ChooseTemplate(const std::string& op,
                                                    const nlohmann::json& args,
                                                    const ops::TargetFacts& facts) {
  if (op == "conv2d") {
    TESSEL_ASSIGN_OR_RETURN(ops::nn::Conv2dAttrs attrs, ops::nn::ReadConv2dAttrs(op, args));
    return ops::FindTemplate(ops::x86::SelectConv2dTemplate(attrs, facts));
  }
  for (const ops::Template* t : ops::AllTemplates()) {
    if (t->op == op) return t;
  }
  return absl::UnimplementedError(absl::StrCat("no x86 template computes operator '", op, "'"));
}

// One distinct task: what it takes to build its kernel.
struct KernelJob {
  const ops::Template* t = nullptr;
  CompiledKernel kernel;
  std::vector<int> nodes;  // the graph nodes it computes
  ops::OpProgram program;
  ir::PrimFunc func;
  absl::Status status;
  std::string warning;
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
                         const ops::TargetFacts& facts, KernelJob& job) {
  const search::Task& task = job.kernel.task;
  const std::string where = absl::StrCat(NodesText(g, job.nodes), " (", job.t->name, ")");
  auto fail = [&](const absl::Status& s) {
    job.status = absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
  };
  absl::StatusOr<search::ConfigSpace> space = job.t->space(task.args, facts);
  if (!space.ok()) return fail(space.status());
  const search::Config fallback = job.t->fallback(*space, task.args, facts);
  job.kernel.config = fallback;
  if (log != nullptr) {
    std::optional<search::Record> best = log->Best(task.Key());
    if (!best) {
      job.warning = absl::StrCat("no tuned config for ", where, ", task ", task.Key(),
                                 "; using the template's fallback");
    } else if (absl::StatusOr<search::Config> tuned = space->FromJson(best->config); !tuned.ok()) {
      job.warning = absl::StrCat("the tuned config for ", where, " does not fit the template (",
                                 tuned.status().message(), "); using the template's fallback");
    } else {
      job.kernel.config = *tuned;
      job.kernel.tuned = true;
    }
  }
  absl::StatusOr<ops::OpProgram> program = job.t->instantiate(job.kernel.config, task.args, facts);
  if (!program.ok() && job.kernel.tuned) {
    job.warning = absl::StrCat("the tuned config for ", where, " fails to instantiate (",
                               program.status().message(), "); using the template's fallback");
    job.kernel.config = fallback;
    job.kernel.tuned = false;
    program = job.t->instantiate(fallback, task.args, facts);
  }
  if (!program.ok()) return fail(program.status());
  job.program = *std::move(program);
  absl::StatusOr<ir::PrimFunc> func =
      transforms::Lower(job.program.schedule, job.program.args, job.kernel.function);
  if (!func.ok()) return fail(func.status());
  job.func = *std::move(func);
}

// One job per distinct task, in order of first use; node_kernel[i] is node i's job.
absl::StatusOr<std::vector<KernelJob>> PlanKernels(const graph::Graph& g, const std::string& target,
                                                   const ops::TargetFacts& facts,
                                                   std::vector<int>& node_kernel) {
  std::vector<KernelJob> jobs;
  absl::flat_hash_map<std::string, int> by_key;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph::Node& node = g.nodes[i];
    TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, graph::OpArgsOf(g, node));
    absl::StatusOr<const ops::Template*> t = ChooseTemplate(node.op, args, facts);
    if (!t.ok()) {
      return absl::Status(t.status().code(), absl::StrCat("node '", node.name, "' (", node.op,
                                                          "): ", t.status().message()));
    }
    search::Task task{.template_name = (*t)->name, .args = std::move(args), .target = target};
    auto [it, inserted] = by_key.try_emplace(task.Key(), static_cast<int>(jobs.size()));
    if (inserted) {
      KernelJob job;
      job.t = *t;
      job.kernel.function =
          absl::StrCat("k", jobs.size(), "_", absl::StrReplaceAll((*t)->name, {{".", "_"}}));
      job.kernel.task = std::move(task);
      jobs.push_back(std::move(job));
    }
    jobs[static_cast<size_t>(it->second)].nodes.push_back(static_cast<int>(i));
    node_kernel.push_back(it->second);
  }
  return jobs;
}

// Connects every node to its kernel (kernel_connection.h), probing in parallel; nodes of one
// kernel reading the same constants share one connection, and a parameter that is a constant as
// it is stays that constant's array.
absl::Status ConnectNodes(const std::vector<KernelJob>& jobs, const std::vector<int>& node_kernel,
                          int threads, CompiledModel& model) {
  const graph::Graph& g = model.graph;
  // The distinct (kernel, constants) pairs, each with the first node that has it.
  std::vector<int> connection_of(g.nodes.size());
  std::vector<int> first_node;
  absl::flat_hash_map<std::string, int> by_key;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::string key = absl::StrCat(node_kernel[i]);
    for (graph::ValueId v : g.nodes[i].inputs) {
      const bool constant = g.value(v).kind == graph::ValueKind::kConstant;
      absl::StrAppend(&key, constant ? absl::StrCat(",", v) : ",-");
    }
    auto [it, inserted] = by_key.try_emplace(key, static_cast<int>(first_node.size()));
    if (inserted) first_node.push_back(static_cast<int>(i));
    connection_of[i] = it->second;
  }
  std::vector<absl::StatusOr<KernelConnection>> connections(first_node.size(),
                                                            absl::UnknownError("not run"));
  ParallelEach(static_cast<int>(first_node.size()), threads, [&](int c) {
    const graph::Node& node = g.nodes[static_cast<size_t>(first_node[static_cast<size_t>(c)])];
    const KernelJob& job = jobs[static_cast<size_t>(
        node_kernel[static_cast<size_t>(first_node[static_cast<size_t>(c)])])];
    std::vector<runtime::NDArray> constants;
    for (graph::ValueId v : node.inputs) {
      const graph::Value& value = g.value(v);
      constants.push_back(value.kind == graph::ValueKind::kConstant ? value.data
                                                                    : runtime::NDArray());
    }
    connections[static_cast<size_t>(c)] = ConnectKernel(
        job.program, constants, absl::StrCat("node '", node.name, "' (", job.t->name, ")"));
  });

  std::vector<CompiledNode> compiled(first_node.size());
  absl::flat_hash_map<const void*, int> parameter_of;  // by data address
  for (size_t c = 0; c < first_node.size(); ++c) {
    if (!connections[c].ok()) return connections[c].status();
    KernelConnection& k = *connections[c];
    const int kernel = node_kernel[static_cast<size_t>(first_node[c])];
    const KernelJob& job = jobs[static_cast<size_t>(kernel)];
    CompiledNode& node = compiled[c];
    node.kernel = kernel;
    node.args = std::move(k.args);
    node.results = std::move(k.results);
    node.use_finish = k.use_finish;
    bool uses_prepare = false;
    for (runtime::KernelArg& arg : node.args) {
      uses_prepare |= arg.source == runtime::KernelArg::Source::kPrepare;
      if (arg.source != runtime::KernelArg::Source::kParameter) continue;
      const runtime::NDArray& p = k.parameters[static_cast<size_t>(arg.index)];
      auto [it, inserted] = parameter_of.try_emplace(p.data<void>(), model.parameters.size());
      if (inserted) model.parameters.push_back(p);
      arg.index = it->second;
    }
    if (uses_prepare) node.prepare = job.program.prepare;
    if (node.use_finish) node.finish = job.program.finish;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    model.nodes.push_back(compiled[static_cast<size_t>(connection_of[i])]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CompiledModel> Compile(const graph::Graph& g, const std::string& target,
                                      const search::ApplyHistoryBest* log,
                                      const CompileOptions& options) {
  const Clock::time_point start = Clock::now();
  if (options.threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 0 (0: one per core), got ", options.threads));
  }
  CompiledModel model;
  TESSEL_RETURN_IF_ERROR(graph::Verify(g));
  TESSEL_ASSIGN_OR_RETURN(model.target, ResolveCompileTarget(target));
  TESSEL_ASSIGN_OR_RETURN(model.facts, ops::DescribeTarget(model.target));
  model.graph = g;

  std::vector<int> node_kernel;
  TESSEL_ASSIGN_OR_RETURN(std::vector<KernelJob> jobs,
                          PlanKernels(g, model.target, model.facts, node_kernel));
  model.stats.select = Since(start);

  Clock::time_point phase = Clock::now();
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  model.stats.threads = std::min(threads, std::max(1, static_cast<int>(jobs.size())));
  ParallelEach(static_cast<int>(jobs.size()), threads, [&](int i) {
    InstantiateAndLower(g, log, model.facts, jobs[static_cast<size_t>(i)]);
  });
  std::vector<ir::PrimFunc> funcs;
  for (KernelJob& job : jobs) {
    TESSEL_RETURN_IF_ERROR(job.status);
    if (!job.warning.empty()) model.warnings.push_back(job.warning);
    funcs.push_back(job.func);
  }
  if (log == nullptr) {
    model.warnings.push_back(
        "no tuning log given: every kernel uses its template's fallback config");
  }
  model.stats.instantiate = Since(phase);

  phase = Clock::now();
  absl::StatusOr<runtime::Module> module = Build(funcs, model.target);
  if (!module.ok()) {
    return absl::Status(module.status().code(),
                        absl::StrCat("building the kernels: ", module.status().message()));
  }
  model.module = *std::move(module);
  model.stats.build = Since(phase);

  phase = Clock::now();
  TESSEL_RETURN_IF_ERROR(ConnectNodes(jobs, node_kernel, threads, model));
  for (KernelJob& job : jobs) model.kernels.push_back(std::move(job.kernel));
  model.stats.parameters = Since(phase);
  model.stats.total = Since(start);
  return model;
}

}  // namespace tessel::driver
