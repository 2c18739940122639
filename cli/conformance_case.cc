#include "cli/conformance_case.h"

#include <absl/strings/str_cat.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "compiler/driver/compile_model.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/runtime/graph_executor.h"

namespace tessel::cli {
namespace {

using graph::onnx::ConformanceCase;

// "unsupported: <operator> (<detail>)" for an Unimplemented error, else empty.
std::string Unsupported(const absl::Status& s) {
  if (!absl::IsUnimplemented(s)) return "";
  std::optional<graph::onnx::UnsupportedOperator> u = graph::onnx::FindUnsupportedOperator(s);
  if (!u) return absl::StrCat("unsupported: ", s.message());
  return absl::StrCat("unsupported: ", u->op, u->detail.empty() ? "" : " (" + u->detail + ")");
}

}  // namespace

std::string RunConformanceCase(const ConformanceCase& c, const target::Target& target) {
  absl::StatusOr<graph::Graph> g = graph::onnx::ImportOnnxFile(c.model);
  if (!g.ok()) {
    std::string unsupported = Unsupported(g.status());
    return unsupported.empty() ? absl::StrCat("failed (import: ", g.status().message(), ")")
                               : unsupported;
  }
  absl::StatusOr<driver::CompiledModel> model = driver::Compile(*g, target, nullptr);
  if (!model.ok()) {
    std::string unsupported = Unsupported(model.status());
    return unsupported.empty() ? absl::StrCat("failed (compile: ", model.status().message(), ")")
                               : unsupported;
  }
  absl::StatusOr<runtime::GraphExecutor> exec = driver::MakeExecutor(*model);
  if (!exec.ok()) return absl::StrCat("failed (executor: ", exec.status().message(), ")");

  std::vector<std::vector<int64_t>> input_shapes;
  for (const runtime::TensorDesc& t : exec->InputTypes()) input_shapes.push_back(t.shape);
  absl::StatusOr<std::vector<graph::onnx::ConformanceDataSet>> sets =
      graph::onnx::LoadConformanceData(c, input_shapes);
  if (!sets.ok()) return absl::StrCat("failed (", sets.status().message(), ")");
  for (const graph::onnx::ConformanceDataSet& set : *sets) {
    absl::StatusOr<std::vector<runtime::NDArray>> got = exec->Run(set.inputs);
    if (!got.ok()) return absl::StrCat("failed (run: ", got.status().message(), ")");
    if (std::string why = graph::onnx::CompareConformanceOutputs(*got, set.outputs, c.tolerance());
        !why.empty()) {
      return absl::StrCat("failed (", why, ")");
    }
  }
  return "passed";
}

absl::Status RunOneConformanceCase(const std::string& root, const std::string& name,
                                   const target::Target& target, std::ostream& out) {
  std::vector<ConformanceCase> cases = graph::onnx::FindConformanceCases(root);
  std::erase_if(cases, [&](const ConformanceCase& c) { return c.name != name; });
  if (cases.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no ONNX test case named '", name, "' under '", root, "'"));
  }
  const char* crash = std::getenv("TESSEL_TEST_CRASH_CASE");
  if (crash != nullptr && name == crash) std::abort();
  const std::string result = RunConformanceCase(cases.front(), target);
  out << cases.front().name << ": " << result << "\n" << std::flush;
  if (result == "passed") return absl::OkStatus();
  return absl::FailedPreconditionError("the case did not pass");
}

}  // namespace tessel::cli
