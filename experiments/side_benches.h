#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/target/target_facts.h"
#include "experiments/gemm_job.h"
#include "experiments/side_process.h"
#include "search/records/apply_history_best.h"
#include "workloads/table2.h"

// Ours against a library on one operator, each side in a timing worker of its own and timed
// round robin while the other is idle (side_process.h): the measuring core of `tessel bench
// gemm`, `tessel bench ops` and the nightly suite (nightly/suite.h). Ratios are the library's
// time over ours per round (> 1: ours is faster); `ratio` is their median.
namespace tessel::experiments {

struct SideComparison {
  double ours_ms = 0, theirs_ms = 0;  // medians over the rounds
  std::vector<double> ratios;         // one per round
  double ratio = 0;
  double interference = 0;  // the most CPU the idle side used while the other was timed
};

// GEMM of `shape`: the hand-written schedule against OpenBLAS, outputs compared first (an error
// when they differ). compile_ms: our schedule's build time.
struct GemmComparison {
  SideComparison timing;
  double compile_ms = 0;
};
absl::StatusOr<GemmComparison> CompareGemm(const GemmShape& shape, int threads,
                                           const RoundRobinOptions& timer);

// One Table 2 layer: the strategy's template for `facts` against oneDNN's direct convolution on
// the same inputs; our output is checked against libtorch after the timing (`correct`).
struct LayerComparison {
  std::string layer, template_name;
  std::string config;  // "tuned", "fallback", or "forced"
  double gflop = 0;
  bool conv = true;  // a C layer (else D, depthwise)
  SideComparison timing;
  std::string correct;  // "yes", or "NO: <the first mismatch>"
};
struct LayerOptions {
  // Tuned configs, looked up by the layer's task; null: the fallback config.
  const search::ApplyHistoryBest* history = nullptr;
  // When set, this config (a ConfigSpace JSON) instead of the tuned or fallback one.
  nlohmann::json forced_config = nullptr;
};
absl::StatusOr<LayerComparison> CompareLayer(const workloads::Layer& layer,
                                             const target::TargetFacts& facts, int threads,
                                             const RoundRobinOptions& timer,
                                             const LayerOptions& options);

}  // namespace tessel::experiments
