#include "cli/commands.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <span>

#include "cli/conformance.h"
#include "cli/experiment_command.h"
#include "cli/export_command.h"
#include "cli/flags.h"
#include "cli/gemm_commands.h"
#include "cli/list.h"
#include "cli/log_commands.h"
#include "cli/model_bench.h"
#include "cli/model_commands.h"
#include "cli/nightly_command.h"
#include "cli/offload_bench.h"
#include "cli/ops_bench.h"
#include "cli/tune_command.h"
#include "cli/version.h"
#include "compiler/support/status_macros.h"

namespace tessel::cli {
namespace {

using Args = std::span<const std::string>;

struct Command {
  const char* name;
  const char* summary;
  std::function<absl::Status(Args, std::ostream&)> run;
};

// The quickstart experiment (experiments/configs/quickstart.yaml) into --out, or into a fresh
// temporary folder so that every run tunes afresh.
absl::Status Quickstart(Args args, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(Flags flags,
                          Flags::Parse("quickstart", args, {{"out", "results folder"}}));
  std::string dir = flags.String("out", "");
  if (dir.empty()) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tessel-quickstart-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      return absl::InternalError(absl::StrCat("cannot create a folder like ", pattern));
    dir = pattern;
  }
  std::vector<std::string> experiment = {"quickstart", "--out", dir};
  return ExperimentCommand(experiment, out);
}

absl::Status NoArguments(const char* command, Args args) {
  if (args.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("'", command, "' takes no arguments, got '", args.front(), "'"));
}

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"version", "the git commit and the versions of the libraries the build found",
       [](Args args, std::ostream& out) {
         absl::Status status = NoArguments("version", args);
         if (status.ok()) out << VersionReport();
         return status;
       }},
      {"list",
       "what is registered: targets, operators and templates, cost models, explorers, "
       "workloads",
       [](Args args, std::ostream& out) {
         absl::Status status = NoArguments("list", args);
         if (status.ok()) out << RegistryListing();
         return status;
       }},
      {"quickstart",
       "the first job: one ResNet-18 layer (C6) tuned by XGBoost-guided search and by random "
       "search, a few minutes, ending in a table against oneDNN (`--out DIR`, default a fresh "
       "temporary folder)",
       [](Args args, std::ostream& out) { return Quickstart(args, out); }},
      {"bench",
       "benchmarks: `bench gemm --m M --n N --k K --threads T` (ours and OpenBLAS "
       "interleaved); `bench schedules` (a 1024^3 GEMM with the default and a hand-written "
       "schedule against OpenBLAS and the FMA peak); `bench ops --suite table2 --target llvm "
       "--threads T` (the paper's Table 2 "
       "layers, ours and oneDNN interleaved, checked against libtorch); `bench model NAME --vs "
       "libtorch --threads T` (a whole network, ours and libtorch interleaved); `bench offload "
       "NAME "
       "[--to vdla]` (Fig. 21: a network's int8 convolutions and dense layers on the accelerator "
       "against the CPU alone); `bench nightly "
       "[--quick] [--baseline FILE] [--out DIR] [--update-baseline]` (the regression suite: "
       "history, verdict against the baseline, report)",
       [](Args args, std::ostream& out) {
         if (!args.empty() && args.front() == "gemm") return BenchGemm(args.subspan(1), out);
         if (!args.empty() && args.front() == "ops") return BenchOps(args.subspan(1), out);
         if (!args.empty() && args.front() == "model") return BenchModel(args.subspan(1), out);
         if (!args.empty() && args.front() == "offload") {
           return BenchOffload(args.subspan(1), out);
         }
         if (!args.empty() && args.front() == "nightly") return BenchNightly(args.subspan(1), out);
         if (!args.empty() && args.front() == "schedules")
           return BenchSchedules(args.subspan(1), out);
         return absl::InvalidArgumentError(absl::StrCat(
             "'bench' needs a benchmark name: gemm, ops, model, offload, nightly or schedules",
             args.empty() ? "" : absl::StrCat(", not '", args.front(), "'")));
       }},
      {"tune",
       "tune one operator or every task of a model: `tune --workload C6|NETWORK | MODEL.onnx "
       "--tuner xgb --trials 200 --log L` (resumes an existing log; `tessel tune --help` lists "
       "the flags)",
       [](Args args, std::ostream& out) { return TuneCommand(args, out); }},
      {"experiment",
       "runs an experiment config (operators tuned by strategies x seeds against oneDNN, or "
       "compiled models compared): `experiment CONFIG.yaml [--out DIR]`; shipped: quickstart, "
       "fig12_costmodels, tuned_table2, fig4_fusion, fig14_end2end",
       [](Args args, std::ostream& out) { return ExperimentCommand(args, out); }},
      {"compile",
       "compile a model to a folder: `compile (MODEL.onnx | --workload NAME) --target T [--log L] "
       "-o DIR` (each task's tuned config from the logs, else its fallback)",
       [](Args args, std::ostream& out) { return CompileCommand(args, out); }},
      {"export",
       "a network written as PyTorch's exporter writes it: `export NETWORK -o FILE.onnx "
       "[--batch N] [--seed S]` (then `compile FILE.onnx`, `bench model FILE.onnx`)",
       [](Args args, std::ostream& out) { return ExportCommand(args, out); }},
      {"run",
       "run a compiled model: `run DIR --input NAME=FILE.npy ... [--output FILE.npy] [--bench]`",
       [](Args args, std::ostream& out) { return RunCommand(args, out); }},
      {"conformance",
       "ONNX test cases under DIR compiled, run and compared: `conformance DIR` (per case passed, "
       "failed or unsupported; last line `N passed, N failed`; exit 1 unless all passed)",
       [](Args args, std::ostream& out) { return ConformanceCommand(args, out); }},
      {"log",
       "tuning logs: `log summary LOG` (per task: trials, errors, best), `log best LOG` (the best "
       "record per task, as JSON lines)",
       [](Args args, std::ostream& out) { return LogCommand(args, out); }},
  };
  return commands;
}

std::string Usage() {
  std::string usage = "usage: tessel <command> [arguments]\n\ncommands:\n";
  for (const Command& c : Commands())
    absl::StrAppend(&usage, absl::StrFormat("  %-10s %s\n", c.name, c.summary));
  absl::StrAppend(&usage, absl::StrFormat("  %-10s %s\n", "help", "this message"));
  absl::StrAppend(&usage, "\nFrom a checkout, ./tessel test runs every test.\n");
  return usage;
}

}  // namespace

int RunCommandLine(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << "tessel: no command given\n\n" << Usage();
    return kExitUsage;
  }
  const std::string& name = args.front();
  if (name == "help" || name == "--help" || name == "-h") {
    out << Usage();
    return kExitOk;
  }
  for (const Command& c : Commands()) {
    if (name != c.name) continue;
    absl::Status status = c.run(Args(args).subspan(1), out);
    if (status.ok()) return kExitOk;
    err << "tessel " << name << ": " << status.message() << "\n";
    return absl::IsInvalidArgument(status) ? kExitUsage : kExitFailed;
  }
  err << "tessel: unknown command '" << name << "'\n\n" << Usage();
  return kExitUsage;
}

}  // namespace tessel::cli
