#include "cli/conformance.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>

#include <filesystem>
#include <optional>

#include "cli/command_args.h"
#include "compiler/driver/compile_model.h"
#include "compiler/graph/onnx/import.h"
#include "compiler/graph/onnx/conformance_cases.h"
#include "compiler/runtime/device_probe.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;
using graph::onnx::ConformanceCase;

// "unsupported: <operator> (<detail>)" for an Unimplemented error, else empty.
std::string Unsupported(const absl::Status& s) {
  if (!absl::IsUnimplemented(s)) return "";
  std::optional<graph::onnx::UnsupportedOperator> u = graph::onnx::FindUnsupportedOperator(s);
  if (!u) return absl::StrCat("unsupported: ", s.message());
  return absl::StrCat("unsupported: ", u->op, u->detail.empty() ? "" : " (" + u->detail + ")");
}

// The case's result line (after "<name>: ").
std::string RunCase(const ConformanceCase& c, const target::Target& target) {
  absl::StatusOr<graph::Graph> g = graph::onnx::ImportOnnxFile(c.model);
  if (!g.ok()) {
    std::string unsupported = Unsupported(g.status());
    return unsupported.empty() ? absl::StrCat("failed (import: ", g.status().message(), ")")
                               : unsupported;
  }
  absl::StatusOr<driver::CompiledModel> model =
      driver::Compile(*g, target, nullptr);
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

}  // namespace

absl::Status ConformanceCommand(std::span<const std::string> arg_words, std::ostream& out) {
  const ArgSpec spec{.flags = {{"filter", "only the cases whose path contains this text"},
                               {"target", "llvm (default: this machine's CPU), cuda or opencl"}},
                     .switches = {},
                     .aliases = {}};
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("conformance", arg_words, spec));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError("give one folder of ONNX test cases: tessel conformance DIR");
  }
  TESSEL_ASSIGN_OR_RETURN(std::string filter, args.Value("filter", ""));
  TESSEL_ASSIGN_OR_RETURN(std::string target_text, args.Value("target", "llvm"));
  absl::StatusOr<target::Target> target = target::Target::Parse(target_text);
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", target.status().message()));
  }
  if (target->kind() != "llvm") {
    // Every case would fail the same way: say it once.
    if (absl::Status device = runtime::ProbeDevice(target::TargetDevice(*target)); !device.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--target '", target_text, "' cannot run here: ", device.message()));
    }
  }
  const fs::path root(args.positional().front());
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat("'", root.string(), "' is not a folder"));
  }
  std::vector<ConformanceCase> cases = graph::onnx::FindConformanceCases(root.string());
  std::erase_if(cases, [&](const ConformanceCase& c) { return !absl::StrContains(c.name, filter); });
  if (cases.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ONNX test cases under '", root.string(), "'",
        filter.empty() ? "" : absl::StrCat(" matching '", filter, "'"),
        " (a folder with model.onnx and test_data_set_*, or X.onnx with X_output_0.pb)"));
  }
  int passed = 0, failed = 0;
  for (const ConformanceCase& c : cases) {
    const std::string result = RunCase(c, *target);
    out << c.name << ": " << result << "\n" << std::flush;
    (result == "passed" ? passed : failed) += 1;
  }
  out << passed << " passed, " << failed << " failed\n";
  if (failed > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(failed, " of ", cases.size(), " cases did not pass"));
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
