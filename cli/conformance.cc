#include "cli/conformance.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli/command_args.h"
#include "cli/conformance_case.h"
#include "compiler/graph/onnx/conformance_cases.h"
#include "compiler/runtime/device_probe.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_device.h"
#include "experiments/runfiles.h"
#include "search/measure/child_process.h"

namespace tessel::cli {
namespace {

namespace fs = std::filesystem;
using graph::onnx::ConformanceCase;

// A case that runs longer than this is a failure (a light model takes seconds).
constexpr double kCaseTimeoutSeconds = 600;

// The program that runs one case (cli/conformance_case.h): beside this process's executable
// (Bazel builds it next to `tessel`, as its data), else in the runfiles (a test running the
// command in-process). It does not link libtorch, whose loading and operator registry are most
// of a `tessel` process's start (1 s here, against 0.05 s).
absl::StatusOr<std::string> CaseRunner() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "conformance_case";
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return experiments::FindRunfile("cli/conformance_case");
}

// What the child running one case printed for it: its line's result, else how it ended.
std::string ChildResult(const std::string& name, const search::ChildExit& exit,
                        const std::string& log_path) {
  std::ifstream log(log_path);
  const std::string prefix = name + ": ";
  std::string line, result;
  while (std::getline(log, line)) {
    if (line.starts_with(prefix)) result = line.substr(prefix.size());
  }
  if (!result.empty()) return result;
  const std::string last = search::LastLogLine(log_path);
  return absl::StrCat("failed (the case's process ", search::DescribeExit(exit),
                      last.empty() ? "" : absl::StrCat("; its last line: ", last), ")");
}

// Runs one case in a process of its own (`conformance_case ROOT NAME TARGET`), so that a crash
// or a hang is that case's failure: its result line.
std::string RunIsolated(const std::string& runner, const std::string& root, const std::string& name,
                        const std::string& target_text, const std::string& log_path) {
  absl::StatusOr<std::unique_ptr<search::ChildProcess>> child =
      search::ChildProcess::Spawn({runner, root, name, target_text}, log_path, kCaseTimeoutSeconds);
  if (!child.ok()) return absl::StrCat("failed (", child.status().message(), ")");
  const search::ChildExit exit = (*child)->Wait();
  return ChildResult(name, exit, log_path);
}

// The operator an "unsupported: <op> (...)" result names.
std::string UnsupportedOperatorOf(const std::string& result) {
  const std::string rest = result.substr(std::string("unsupported: ").size());
  return rest.substr(0, rest.find(' '));
}

}  // namespace

absl::Status ConformanceCommand(std::span<const std::string> arg_words, std::ostream& out) {
  const ArgSpec spec{.flags = {{"filter", "only the cases whose path contains this text"},
                               {"target", "llvm (default: this machine's CPU), cuda or opencl"},
                               {"case", "only the case of this name, run in this process"}},
                     .switches = {},
                     .aliases = {}};
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args, CommandArgs::Parse("conformance", arg_words, spec));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError("give one folder of ONNX test cases: tessel conformance DIR");
  }
  TESSEL_ASSIGN_OR_RETURN(std::string filter, args.Value("filter", ""));
  TESSEL_ASSIGN_OR_RETURN(const std::string only_case, args.Value("case", ""));
  TESSEL_ASSIGN_OR_RETURN(std::string target_text, args.Value("target", "llvm"));
  absl::StatusOr<target::Target> target = target::Target::Parse(target_text);
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", target.status().message()));
  }
  if (target->kind() != "llvm") {
    // Every case would fail the same way: say it once.
    if (absl::Status device = runtime::ProbeDevice(target::TargetDevice(*target)); !device.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("--target '", target_text, "' cannot run here: ", device.message()));
    }
  }
  const fs::path root(args.positional().front());
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat("'", root.string(), "' is not a folder"));
  }
  if (!only_case.empty()) return RunOneConformanceCase(root.string(), only_case, *target, out);
  std::vector<ConformanceCase> cases = graph::onnx::FindConformanceCases(root.string());
  std::erase_if(cases,
                [&](const ConformanceCase& c) { return !absl::StrContains(c.name, filter); });
  if (cases.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no ONNX test cases under '", root.string(), "'",
        filter.empty() ? "" : absl::StrCat(" matching '", filter, "'"),
        " (a folder with model.onnx and test_data_set_*, or X.onnx with X_output_0.pb)"));
  }
  TESSEL_ASSIGN_OR_RETURN(const std::string runner, CaseRunner());
  std::string log_dir = (fs::temp_directory_path() / "tessel-conformance-XXXXXX").string();
  if (mkdtemp(log_dir.data()) == nullptr) {
    return absl::InternalError("cannot make a temporary folder for the cases' logs");
  }
  int passed = 0, failed = 0;
  std::map<std::string, int> unsupported;
  for (const ConformanceCase& c : cases) {
    const std::string log_path = (fs::path(log_dir) / "case.log").string();
    const std::string result = RunIsolated(runner, root.string(), c.name, target_text, log_path);
    fs::remove(log_path, ec);
    out << c.name << ": " << result << "\n" << std::flush;
    (result == "passed" ? passed : failed) += 1;
    if (result.starts_with("unsupported: ")) ++unsupported[UnsupportedOperatorOf(result)];
  }
  fs::remove_all(log_dir, ec);
  if (!unsupported.empty()) {
    std::vector<std::string> counts;
    for (const auto& [op, n] : unsupported) counts.push_back(absl::StrCat(op, " ", n));
    out << "unsupported operators (cases): " << absl::StrJoin(counts, ", ") << "\n";
  }
  out << passed << " passed, " << failed << " failed\n";
  if (failed > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(failed, " of ", cases.size(), " cases did not pass"));
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
