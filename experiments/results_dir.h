#pragma once

#include <string>

#include "compiler/target/target.h"

// Where an experiment writes when no --out is given: results/<name>/<cpu>, the CPU LLVM names
// for the resolved target ("znver3", "skylake-avx512"), so a rerun on another kind of machine
// writes beside the committed results instead of resuming into them (tuning logs are per CPU,
// experiments/bench_target.h). results/<name> when the target names no CPU.
namespace tessel::experiments {

std::string DefaultResultsDir(const std::string& name, const target::Target& resolved_target);

}  // namespace tessel::experiments
