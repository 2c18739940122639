#pragma once

#include <absl/status/statusor.h>

#include <ostream>
#include <string>
#include <vector>

#include "experiments/nightly/record.h"

// The nightly suite: what `tessel bench nightly` measures, as one Record (record.h). Families
// and figures (every ratio: the reference's time over ours, > 1 faster; timed round robin, each
// side in a process of its own and timed while the other is idle):
//   gemm      gemm/1024: the hand-written GEMM schedule against OpenBLAS, 1024^3, `threads`;
//   table2    table2/C1 .. table2/D9: each layer's template against oneDNN, with the tuned
//             configs of results/tuned_table2/<cpu>/logs where this CPU has them (else the
//             fallback config);
//   networks  network/<name>: the five networks of Fig. 14 (full suite: also the exported
//             ResNet-18, MobileNet v2 and BERT ONNX files) compiled by Tessel against libtorch,
//             outputs checked first, with results/fig14_end2end/<cpu>/logs where this CPU has
//             them;
//   compile   compile/resnet18: seconds to compile ResNet-18 (graph passes, kernels, LLVM) with
//             its log, lower is better (compile/<name> for SuiteOptions::compile_network);
//   steps     steps/<name>: the kernels a compiled network launches (untuned), lower is better;
//             deterministic, so a change in fusion shows however noisy the timings are;
//   memory    memory/<name>: the compiled network's planned peak of intermediate buffers, MB,
//             lower is better (deterministic: a change is a change in the planner);
//   tuning    tuning/C6_speedup: the best of a short fixed-seed xgb+sa run of C6 over oneDNN;
//             tuning/C6_trials_per_minute: its throughput.
// The quick suite (under 10 minutes on 2 cores) takes 5 repeats, a shorter tuning run and no
// exported models; the full one 7 repeats.
namespace tessel::experiments::nightly {

// Regressions planted on purpose, so that a test can check the verdict names each (never for a
// real run: the record says which were planted).
struct Plants {
  bool poor_config = false;  // Table 2 layers run their space's first config (smallest tiles)
  bool unfused = false;      // networks compiled with operator fusion off (network/, steps/)
  // The compile figure compiles four times per repeat and counts them all: on a loaded 2-core
  // machine one compile of DQN takes 1.1 to 2.2 s, so twice as slow can hide in the spread.
  bool slow_compile = false;
};

struct SuiteOptions {
  bool quick = true;
  int threads = 2;
  std::string results_dir = "results";  // where the committed tuning logs are read
  std::string work_dir;                 // scratch (the tuning run's files); required
  // Only the figures whose names start with one of these (empty: all): a smaller suite for
  // tests, e.g. {"table2/C6", "network/dqn", "compile/"}.
  std::vector<std::string> only;
  // The network of the compile figure, one of workloads/networks: ResNet-18 is the one users
  // compile; a test that judges the figure many times takes a smaller one (DQN: 5 kernels).
  std::string compile_network = "resnet18";
  Plants plants;
};

// LLVM's name for this machine's CPU ("znver3"), which names the per-CPU results folders and
// every record.
absl::StatusOr<std::string> HostCpu();

// Errors: bad options (naming the field), a measurement that fails (naming the figure).
absl::StatusOr<Record> RunSuite(const SuiteOptions& options, std::ostream& progress);

}  // namespace tessel::experiments::nightly
