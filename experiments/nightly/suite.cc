#include "experiments/nightly/suite.h"

#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>
#include <absl/time/clock.h>
#include <absl/time/time.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "compiler/driver/compile_model.h"
#include "compiler/ops/strategy.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "experiments/build_info.h"
#include "experiments/compare_models.h"
#include "experiments/config.h"
#include "experiments/registered_names.h"
#include "experiments/runner.h"
#include "experiments/side_benches.h"
#include "hardware/host/machine.h"
#include "third_party/system_packages.h"
#include "workloads/exported/exported.h"
#include "workloads/networks/network.h"
#include "workloads/table2.h"

namespace tessel::experiments::nightly {
namespace {

namespace fs = std::filesystem;

// The suite's state while it runs: options, the machine's facts, the record being filled.
class Suite {
 public:
  Suite(const SuiteOptions& options, std::ostream& progress) : o_(options), progress_(progress) {}

  absl::StatusOr<Record> Run() {
    TESSEL_RETURN_IF_ERROR(Check());
    TESSEL_ASSIGN_OR_RETURN(target_, target::ResolveCompileTarget(target::Target::Llvm()));
    TESSEL_ASSIGN_OR_RETURN(facts_, target::DescribeTarget(target_));
    TESSEL_ASSIGN_OR_RETURN(cpu_, HostCpu());
    facts_.cores = o_.threads;  // the templates size their parallel loops for these threads
    runtime::ThreadPool::Global().SetNumThreads(o_.threads);
    Header();
    timer_.repeat = o_.quick ? 5 : 7;
    timer_.warmup = 2;
    TESSEL_RETURN_IF_ERROR(Gemm());
    TESSEL_RETURN_IF_ERROR(Table2());
    TESSEL_RETURN_IF_ERROR(Networks());
    TESSEL_RETURN_IF_ERROR(CompileTime());
    TESSEL_RETURN_IF_ERROR(Tuning());
    return record_;
  }

 private:
  absl::Status Check() const {
    if (o_.threads < 1 || o_.threads > 1024) {
      return absl::InvalidArgumentError(
          absl::StrCat("threads must be between 1 and 1024, got ", o_.threads));
    }
    if (o_.work_dir.empty()) return absl::InvalidArgumentError("work_dir is required");
    return absl::OkStatus();
  }

  bool Wanted(const std::string& figure) const {
    if (o_.only.empty()) return true;
    for (const std::string& prefix : o_.only) {
      if (absl::StartsWith(figure, prefix)) return true;
    }
    return false;
  }

  void Header() {
    record_.date = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
    record_.commit = kGitCommit;
    record_.state = kGitState;
    record_.suite = o_.quick ? "quick" : "full";
    record_.machine = hardware::DescribeHost();
    record_.cpu = cpu_;
    record_.threads = o_.threads;
    for (const system_packages::Package& p : system_packages::kDebianPackages) {
      for (const char* lib :
           {"libtorch-dev", "libdnnl-dev", "libopenblas-dev", "llvm-15-dev", "libxgboost-dev"}) {
        if (std::string(p.name) == lib) record_.versions[lib] = *p.version ? p.version : "none";
      }
    }
    nlohmann::json planted = nlohmann::json::array();
    if (o_.plants.poor_config) planted.push_back("poor_config");
    if (o_.plants.unfused) planted.push_back("unfused");
    if (o_.plants.slow_compile) planted.push_back("slow_compile");
    if (!planted.empty()) record_.versions["planted_regressions"] = planted;
    progress_ << "nightly " << record_.suite << " suite: " << record_.machine << ", " << cpu_
              << ", " << o_.threads << " threads, commit " << record_.commit << " ("
              << record_.state << ")\n";
  }

  void Add(Figure f) {
    progress_ << absl::StrFormat("  %-32s %10.3f %s\n", f.name, f.value, f.unit);
    progress_.flush();
    record_.figures.push_back(std::move(f));
  }

  static Figure Ratio(const std::string& name, const std::string& family, const SideComparison& c,
                      const std::string& theirs) {
    Figure f = MakeFigure(name, family, "x", true);
    f.value = c.ratio;
    f.repeats = c.ratios;
    f.absolute = {{"tessel_ms", c.ours_ms}, {theirs + "_ms", c.theirs_ms}};
    return f;
  }

  // Tuning logs of this CPU under results/<experiment>/<cpu>/logs/<file>, the ones that exist.
  std::vector<std::string> Logs(const std::string& experiment,
                                const std::vector<std::string>& files) const {
    std::vector<std::string> found;
    for (const std::string& file : files) {
      const std::string path =
          absl::StrCat(o_.results_dir, "/", experiment, "/", cpu_, "/logs/", file);
      if (fs::exists(path)) found.push_back(path);
    }
    return found;
  }

  absl::Status Gemm() {
    if (!Wanted("gemm/1024")) return absl::OkStatus();
    RoundRobinOptions timer = timer_;
    timer.min_repeat_ms = 100;
    absl::StatusOr<GemmComparison> c = CompareGemm({1024, 1024, 1024}, o_.threads, timer);
    if (!c.ok()) return Named("gemm/1024", c.status());
    Add(Ratio("gemm/1024", "gemm", c->timing, "openblas"));
    return absl::OkStatus();
  }

  absl::Status Table2() {
    std::vector<std::string> files;
    for (const workloads::Layer& layer : workloads::Table2()) {
      files.push_back(layer.name + "/xgb+sa_seed0.jsonl");
    }
    std::optional<search::ApplyHistoryBest> history;
    if (const std::vector<std::string> logs = Logs("tuned_table2", files); !logs.empty()) {
      TESSEL_ASSIGN_OR_RETURN(search::ApplyHistoryBest read,
                              search::ApplyHistoryBest::FromLogs(logs));
      history.emplace(std::move(read));
    }
    RoundRobinOptions timer = timer_;
    timer.min_repeat_ms = 50;
    for (const workloads::Layer& layer : workloads::Table2()) {
      const std::string name = "table2/" + layer.name;
      if (!Wanted(name)) continue;
      LayerOptions options;
      options.history = history ? &*history : nullptr;
      if (o_.plants.poor_config) {
        TESSEL_ASSIGN_OR_RETURN(options.forced_config, FirstConfig(layer));
      }
      absl::StatusOr<LayerComparison> c = CompareLayer(layer, facts_, o_.threads, timer, options);
      if (!c.ok()) return Named(name, c.status());
      if (c->correct != "yes") {
        return absl::InternalError(
            absl::StrCat(name, ": output differs from libtorch: ", c->correct));
      }
      Figure f = Ratio(name, "table2", c->timing, "onednn");
      f.absolute["config"] = c->config;
      f.absolute["template"] = c->template_name;
      Add(std::move(f));
    }
    return absl::OkStatus();
  }

  // The layer's template's first config: every split at its smallest (a poor config on purpose).
  absl::StatusOr<nlohmann::json> FirstConfig(const workloads::Layer& layer) const {
    const ops::OpArgs args = workloads::Conv2dArgs(layer);
    TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate("conv2d", args, facts_));
    TESSEL_ASSIGN_OR_RETURN(search::ConfigSpace space, t->space(args, facts_));
    TESSEL_ASSIGN_OR_RETURN(const search::Config first, space.Get(0));
    return first.ToJson();
  }

  struct NetworkCase {
    std::string name;     // the figure's: network/<name>
    std::string network;  // workloads/networks
    std::string onnx;     // "": built; else exported to this file first
  };

  std::vector<NetworkCase> NetworkCases() const {
    std::vector<NetworkCase> cases;
    for (const char* n : {"resnet18", "mobilenet_v1", "dqn", "dcgan", "lstm_lm"}) {
      cases.push_back({n, n, ""});
    }
    if (!o_.quick) {
      for (const std::string n : {"resnet18", "mobilenet_v2", "bert_base"}) {
        cases.push_back({n + ".onnx", n, absl::StrCat(o_.work_dir, "/", n, ".onnx")});
      }
    }
    return cases;
  }

  absl::Status Networks() {
    for (const NetworkCase& n : NetworkCases()) {
      const std::string figure = "network/" + n.name;
      if (!Wanted(figure)) continue;
      if (!n.onnx.empty()) TESSEL_RETURN_IF_ERROR(Export(n));
      CompareOptions options;
      options.target = target_;
      options.threads = o_.threads;
      options.repeat = timer_.repeat;
      options.min_repeat_ms = 50;
      options.logs = Logs("fig14_end2end", {n.network + ".jsonl"});
      ModelVariant tessel{.name = "tessel", .libtorch = false, .onnx_file = n.onnx};
      tessel.compile.fuse = !o_.plants.unfused;
      const ModelVariant torch{.name = "libtorch", .libtorch = true};
      absl::StatusOr<ModelComparison> c = CompareModels(n.network, {torch, tessel}, options);
      if (!c.ok()) return Named(figure, c.status());
      const VariantTiming& base = c->variants[0];
      const VariantTiming& ours = c->variants[1];
      Figure f = MakeFigure(figure, "networks", "x", true);
      f.value = PairedSpeedup(base, ours);
      for (size_t i = 0; i < ours.seconds.size(); ++i) {
        f.repeats.push_back(base.seconds[i] / ours.seconds[i]);
      }
      f.absolute = {{"tessel_ms", runtime::Median(ours.seconds) * 1e3},
                    {"libtorch_ms", runtime::Median(base.seconds) * 1e3},
                    {"kernels", ours.kernels},
                    {"tuned_kernels", ours.tuned_kernels}};
      Add(std::move(f));
    }
    for (const NetworkCase& n : NetworkCases()) {
      if (n.onnx.empty()) TESSEL_RETURN_IF_ERROR(Structure(n.network));
    }
    return absl::OkStatus();
  }

  absl::Status Export(const NetworkCase& n) const {
    absl::StatusOr<::onnx::ModelProto> model = workloads::exported::ExportNetwork(n.network, {});
    if (!model.ok()) return Named("network/" + n.name, model.status());
    return workloads::exported::WriteModel(*model, n.onnx);
  }

  // What the compiler made of a network, deterministic: its steps (kernel launches: fewer when
  // operators fuse) and the planned peak of its intermediate buffers.
  absl::Status Structure(const std::string& network) {
    const std::string steps = "steps/" + network, memory = "memory/" + network;
    if (!Wanted(steps) && !Wanted(memory)) return absl::OkStatus();
    TESSEL_ASSIGN_OR_RETURN(graph::Graph g, workloads::networks::BuildNetwork(network, {}));
    driver::CompileOptions options;
    options.run_threads = o_.threads;
    options.fuse = !o_.plants.unfused;
    absl::StatusOr<driver::CompiledModel> m = driver::Compile(g, target_, nullptr, options);
    if (!m.ok()) return Named(steps, m.status());
    if (Wanted(steps)) {
      Figure f = MakeFigure(steps, "steps", "steps", false);
      f.value = static_cast<double>(m->steps.size());
      f.absolute = {{"fused_steps", m->NumFusedSteps()}, {"graph_nodes", g.nodes.size()}};
      Add(std::move(f));
    }
    if (Wanted(memory)) {
      Figure f = MakeFigure(memory, "memory", "MB", false);
      f.value = static_cast<double>(m->memory.peak_bytes) / 1e6;
      f.absolute = {{"naive_mb", static_cast<double>(m->memory.naive_bytes) / 1e6}};
      Add(std::move(f));
    }
    return absl::OkStatus();
  }

  absl::Status CompileTime() {
    const std::string& network = o_.compile_network;
    const std::string figure = "compile/" + network;
    if (!Wanted(figure)) return absl::OkStatus();
    TESSEL_ASSIGN_OR_RETURN(graph::Graph g, workloads::networks::BuildNetwork(network, {}));
    std::optional<search::ApplyHistoryBest> log;
    if (const std::vector<std::string> logs = Logs("fig14_end2end", {network + ".jsonl"});
        !logs.empty()) {
      TESSEL_ASSIGN_OR_RETURN(search::ApplyHistoryBest read,
                              search::ApplyHistoryBest::FromLogs(logs));
      log.emplace(std::move(read));
    }
    driver::CompileOptions options;
    options.run_threads = o_.threads;
    options.threads = o_.threads;
    Figure f = MakeFigure(figure, "compile", "s", false);
    const int repeats = o_.quick ? 3 : 5;
    for (int i = 0; i < repeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < (o_.plants.slow_compile ? 4 : 1); ++k) {
        absl::StatusOr<driver::CompiledModel> m =
            driver::Compile(g, target_, log ? &*log : nullptr, options);
        if (!m.ok()) return Named(figure, m.status());
      }
      f.repeats.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    f.value = runtime::Median(f.repeats);
    f.absolute = {{"tuned_log", log.has_value()}};
    Add(std::move(f));
    return absl::OkStatus();
  }

  // A short xgb+sa run of C6 from seed 0, from scratch in the work folder.
  absl::Status Tuning() {
    const std::string speedup = "tuning/C6_speedup", rate = "tuning/C6_trials_per_minute";
    if (!Wanted(speedup) && !Wanted(rate)) return absl::OkStatus();
    const int trials = o_.quick ? 64 : 128;
    const std::string yaml = absl::StrCat(
        "name: nightly_tuning\ntarget: llvm\nthreads: 1\ntrials: ", trials,
        "\nseeds: [0]\nworkloads: [C6]\ntemplate: conv2d_nchwc.x86\n",
        "strategies:\n  - {name: xgb+sa, cost_model: xgb, explorer: sa}\n", "baselines: [onednn]\n",
        "measure: {repeat: 3, min_repeat_ms: 20, timeout_seconds: 10, build_workers: 2}\n");
    TESSEL_ASSIGN_OR_RETURN(ExperimentConfig config,
                            ParseExperimentConfig(yaml, "nightly tuning", RegisteredNames()));
    RunnerOptions runner;
    runner.out_dir = o_.work_dir + "/tuning";
    runner.plot = false;
    std::error_code ignored;
    fs::remove_all(runner.out_dir, ignored);  // from scratch: nothing resumes
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<ExperimentOutcome> outcome = RunExperiment(config, runner);
    if (!outcome.ok()) return Named(speedup, outcome.status());
    const double minutes =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
    TESSEL_ASSIGN_OR_RETURN(double best, FinalSpeedup(runner.out_dir + "/summary.csv"));
    Figure best_figure = MakeFigure(speedup, "tuning", "x", true);
    best_figure.value = best;
    best_figure.absolute = {{"trials", trials}};
    Add(std::move(best_figure));
    Figure rate_figure = MakeFigure(rate, "tuning", "trials/min", true);
    rate_figure.value = trials / minutes;
    rate_figure.absolute = {{"minutes", minutes}};
    Add(std::move(rate_figure));
    return absl::OkStatus();
  }

  // summary.csv's final_speedup of its one run.
  static absl::StatusOr<double> FinalSpeedup(const std::string& path) {
    std::ifstream in(path);
    std::string header, row;
    if (!std::getline(in, header) || !std::getline(in, row)) {
      return absl::InternalError(absl::StrCat(path, ": no run in the tuning summary"));
    }
    std::vector<std::string> names = absl::StrSplit(header, ',');
    std::vector<std::string> values = absl::StrSplit(row, ',');
    for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
      double v = 0;
      if (names[i] == "final_speedup" && absl::SimpleAtod(values[i], &v)) return v;
    }
    return absl::InternalError(absl::StrCat(path, ": no final_speedup"));
  }

  static absl::Status Named(const std::string& figure, const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(figure, ": ", s.message()));
  }

  const SuiteOptions& o_;
  std::ostream& progress_;
  target::Target target_;
  target::TargetFacts facts_;
  std::string cpu_;  // LLVM's name for this CPU: the per-CPU results folders
  RoundRobinOptions timer_;
  Record record_;
};

}  // namespace

absl::StatusOr<std::string> HostCpu() {
  TESSEL_ASSIGN_OR_RETURN(const target::Target t,
                          target::ResolveCompileTarget(target::Target::Llvm()));
  return t.Option("mcpu").value_or("generic");
}

absl::StatusOr<Record> RunSuite(const SuiteOptions& options, std::ostream& progress) {
  return Suite(options, progress).Run();
}

}  // namespace tessel::experiments::nightly
