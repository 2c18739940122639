#pragma once

#include <absl/status/statusor.h>

#include <string>

#include "compiler/driver/compile_model.h"
#include "compiler/driver/test_graphs.h"
#include "search/records/apply_history_best.h"
#include "search/space/config_space.h"
#include "search/task/task.h"

// For the driver's tests (gtest): compile a test graph, run it, check it against libtorch; and a
// tuning log holding one chosen config.
namespace tessel::driver::testing {

// Compiles t for `target` with `options` (and `log`), runs it on t.inputs and expects the
// outputs equal to baselines::EvaluateReference's within 1e-4; returns the model (empty when
// compiling failed).
CompiledModel ExpectMatchesReference(const TestGraph& t, const CompileOptions& options = {},
                                     const search::ApplyHistoryBest* log = nullptr,
                                     const target::Target& target = target::Target::Llvm());

// A log (written under $TEST_TMPDIR as `name`) whose one record gives `task` the config `chosen`.
absl::StatusOr<search::ApplyHistoryBest> LogWithConfig(const search::Task& task,
                                                       const search::Config& chosen,
                                                       const std::string& name);

}  // namespace tessel::driver::testing
