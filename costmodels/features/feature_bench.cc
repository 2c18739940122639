// Times feature extraction, the cost the SA explorer pays per candidate it scores:
//
//   feature_bench [--layer=C6] [--template=conv2d_nchwc.x86] [--configs=1000] [--print]
//
// For random configs of the template on a Table 2 layer: the time of each step for one config
// (instantiate, LowerToLoopNest, the features), then FlatBatch of all configs (itervar features,
// fresh extractors, so nothing is cached) on 1 and 2 threads. --print shows the analysis-lowered
// program and itervar rows of the first config.
#include <absl/strings/numbers.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <random>
#include <string>

#include "compiler/ir/printer.h"
#include "compiler/ops/template.h"
#include "compiler/transforms/pipeline.h"
#include "costmodels/features/feature_extractor.h"
#include "costmodels/features/program_features.h"
#include "search/task/task.h"
#include "workloads/table2.h"

namespace tessel::costmodels {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

int Run(int argc, char** argv) {
  std::string layer_name = "C6", template_name = "conv2d_nchwc.x86";
  int64_t n = 1000;
  bool print = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--layer=", 0) == 0) {
      layer_name = arg.substr(8);
    } else if (arg.rfind("--template=", 0) == 0) {
      template_name = arg.substr(11);
    } else if (arg.rfind("--configs=", 0) == 0 && absl::SimpleAtoi(arg.substr(10), &n) && n > 0) {
    } else if (arg == "--print") {
      print = true;
    } else {
      return std::fprintf(stderr, "bad argument %s\n", argv[i]), 2;
    }
  }
  absl::StatusOr<workloads::Layer> layer = workloads::FindLayer(layer_name);
  if (!layer.ok()) return Fail(layer.status());
  const search::Task task{template_name, workloads::Conv2dArgs(*layer),
                          target::Target::Llvm().WithOption("mcpu", "native")};
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  if (!facts.ok()) return Fail(facts.status());
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(template_name);
  if (!t.ok()) return Fail(t.status());
  absl::StatusOr<search::ConfigSpace> space = search::Space(task, *facts);
  if (!space.ok()) return Fail(space.status());
  std::mt19937_64 rng(1);
  const std::vector<search::Config> configs = space->SampleUnique(n, rng);

  // Step by step, one config at a time.
  double instantiate = 0, lower = 0, features = 0, full_lower = 0;
  const size_t steps = std::min<size_t>(configs.size(), 100);
  for (size_t i = 0; i < steps; ++i) {
    Clock::time_point start = Clock::now();
    absl::StatusOr<ops::OpProgram> p = (*t)->instantiate(configs[i], task.args, *facts);
    if (!p.ok()) return Fail(p.status());
    instantiate += Seconds(start);
    start = Clock::now();
    absl::StatusOr<ir::PrimFunc> f = transforms::LowerToLoopNest(p->schedule, p->args, "f");
    if (!f.ok()) return Fail(f.status());
    lower += Seconds(start);
    start = Clock::now();
    const ProgramFeatures pf = ExtractProgramFeatures(*f);
    features += Seconds(start);
    start = Clock::now();
    absl::StatusOr<ir::PrimFunc> g = transforms::Lower(p->schedule, p->args, "f");
    if (!g.ok()) return Fail(g.status());
    full_lower += Seconds(start);
    if (i == 0 && print) {
      std::cout << configs[i].ToString() << "\n" << *f << "\n";
      for (size_t r = 0; r < pf.itervar.size(); ++r) {
        std::printf("%2zu parent %2d:", r, pf.parents[r]);
        for (float v : pf.itervar[r]) std::printf(" %.2f", v);
        std::printf("\n");
      }
    }
  }
  const double ms = 1e3 / static_cast<double>(steps);
  std::printf(
      "%s on %s, per config: instantiate %.3f ms, LowerToLoopNest %.3f ms, features %.3f ms"
      " (transforms::Lower would be %.3f ms)\n",
      template_name.c_str(), layer_name.c_str(), instantiate * ms, lower * ms, features * ms,
      full_lower * ms);

  for (int threads : {1, 2}) {
    std::unique_ptr<FeatureExtractor> extractor =
        MakeProgramFeatureExtractor(FeatureKind::kItervar, *facts, threads);
    const Clock::time_point start = Clock::now();
    const std::clock_t cpu_start = std::clock();
    absl::StatusOr<std::vector<std::vector<float>>> flat = extractor->FlatBatch(task, configs);
    if (!flat.ok()) return Fail(flat.status());
    const double s = Seconds(start);
    // CPU time over wall time: how many cores the threads actually got.
    const double cores = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC / s;
    std::printf(
        "FlatBatch itervar of %zu configs on %d thread%s: %.3f s (%.3f ms per config,"
        " %.2f cores busy)\n",
        configs.size(), threads, threads == 1 ? "" : "s", s,
        s * 1e3 / static_cast<double>(configs.size()), cores);
  }
  return 0;
}

}  // namespace
}  // namespace tessel::costmodels

int main(int argc, char** argv) { return tessel::costmodels::Run(argc, argv); }
