#include "cli/experiment_command.h"

#include <absl/strings/str_cat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <variant>

#include "cli/flags.h"
#include "compiler/support/status_macros.h"
#include "experiments/load_config.h"
#include "experiments/models_runner.h"
#include "experiments/registered_names.h"
#include "experiments/runfiles.h"
#include "experiments/runner.h"

namespace tessel::cli {
namespace {

using experiments::AnyConfig;
using experiments::ExperimentConfig;
using experiments::ExperimentOutcome;
using experiments::ModelsConfig;
using experiments::ModelsOutcome;
using experiments::RunnerOptions;

struct ConfigFile {
  std::string path;   // where to read it
  std::string shown;  // how messages and the report name it
};

// The config file `given` names: the file itself, or else a shipped config by its name
// ("quickstart" or "quickstart.yaml": experiments/configs/ in the runfiles).
ConfigFile FindConfig(const std::string& given) {
  if (std::filesystem::exists(given) || given.find('/') != std::string::npos) return {given, given};
  std::string name = given;
  if (name.ends_with(".yaml")) name.resize(name.size() - 5);
  const std::string shipped = absl::StrCat("experiments/configs/", name, ".yaml");
  absl::StatusOr<std::string> path = experiments::FindRunfile(shipped);
  if (!path.ok()) return {given, given};
  return {*path, shipped};
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::cerr << "tessel experiment: warning: " << warning << "\n";
  }
}

}  // namespace

absl::Status ExperimentCommand(std::span<const std::string> args, std::ostream& out) {
  if (args.empty() || args.front().starts_with("--")) {
    return absl::InvalidArgumentError(
        "'experiment' needs a config: tessel experiment CONFIG.yaml [--out DIR] (see "
        "experiments/README.md; examples in experiments/configs/)");
  }
  const ConfigFile file = FindConfig(args.front());
  TESSEL_ASSIGN_OR_RETURN(
      Flags flags, Flags::Parse("experiment", args.subspan(1),
                                {{"out", "the output directory (default results/<name>/<cpu>)"}}));
  TESSEL_ASSIGN_OR_RETURN(AnyConfig any,
                          experiments::LoadAnyConfig(file.path, experiments::RegisteredNames()));
  RunnerOptions options;
  options.out_dir = flags.String("out", "");
  options.progress = &std::cerr;
  options.progress_in_place = isatty(STDERR_FILENO) != 0;
  if (auto* models = std::get_if<ModelsConfig>(&any)) {
    // A shipped config is reported by its place in the source tree, not in the runfiles.
    if (file.path != file.shown) models->source_path = file.shown;
    TESSEL_ASSIGN_OR_RETURN(ModelsOutcome outcome,
                            experiments::RunModelsExperiment(*models, options));
    PrintWarnings(outcome.warnings);
    out << "\n" << outcome.table;
    out << absl::StrCat("\n", outcome.networks, " networks x ", models->variants.size(),
                        " variants; results in ", outcome.out_dir, "/summary.md\n");
    return absl::OkStatus();
  }
  ExperimentConfig& config = std::get<ExperimentConfig>(any);
  if (file.path != file.shown) config.source_path = file.shown;
  TESSEL_ASSIGN_OR_RETURN(ExperimentOutcome outcome, experiments::RunExperiment(config, options));
  PrintWarnings(outcome.warnings);
  out << "\n" << outcome.table;
  out << absl::StrCat("\n", outcome.runs, " runs (", outcome.tuned, " tuned now, ",
                      outcome.runs - outcome.tuned, " finished before); results in ",
                      outcome.out_dir, "/summary.md\n");
  return absl::OkStatus();
}

}  // namespace tessel::cli
