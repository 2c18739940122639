#include "compiler/driver/compile_check.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "baselines/torch/graph_reference.h"
#include "compiler/ops/op_runner.h"
#include "compiler/support/status_macros.h"
#include "search/records/log.h"

namespace tessel::driver::testing {

CompiledModel ExpectMatchesReference(const TestGraph& t, const CompileOptions& options,
                                     const search::ApplyHistoryBest* log,
                                     const target::Target& target) {
  absl::StatusOr<CompiledModel> m = Compile(t.graph, target, log, options);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  absl::StatusOr<runtime::GraphExecutor> exec = MakeExecutor(*m);
  EXPECT_TRUE(exec.ok()) << exec.status();
  if (!exec.ok()) return *std::move(m);
  absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(t.inputs);
  EXPECT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want =
      baselines::EvaluateReference(t.graph, t.inputs);
  EXPECT_TRUE(want.ok()) << want.status();
  if (got.ok() && want.ok()) {
    absl::Status same = ops::CompareOutputs(*got, *want, {.atol = 1e-4, .rtol = 1e-4});
    EXPECT_TRUE(same.ok()) << same;
  }
  return *std::move(m);
}

absl::StatusOr<search::ApplyHistoryBest> LogWithConfig(const search::Task& task,
                                                       const search::Config& chosen,
                                                       const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  {
    TESSEL_ASSIGN_OR_RETURN(search::LogWriter writer, search::LogWriter::Open(path));
    search::Record good;
    good.task = task;
    good.config = chosen.ToJson();
    good.config_index = chosen.index();
    good.result.costs = {1e-6};
    TESSEL_RETURN_IF_ERROR(writer.Append({good}));
  }
  return search::ApplyHistoryBest::FromLogs({path});
}

}  // namespace tessel::driver::testing
