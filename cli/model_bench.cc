#include "cli/model_bench.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <optional>

#include "cli/command_args.h"
#include "cli/model_commands.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "experiments/bench_target.h"
#include "experiments/compare_models.h"
#include "workloads/exported/exported.h"
#include "workloads/networks/network.h"

namespace tessel::cli {
namespace {

ArgSpec BenchModelSpec() {
  return ArgSpec{.flags = {{"vs", "the baseline: libtorch"},
                           {"threads", "threads for both sides (default 2)"},
                           {"batch", "batch size (default 1)"},
                           {"log", "tuning logs, comma-separated: each task's best config"},
                           {"repeat", "interleaved timed repeats (default 7)"},
                           {"only", "time one side alone: tessel or libtorch"}},
                 .switches = {},
                 .aliases = {}};
}

}  // namespace

absl::Status BenchModel(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args,
                          CommandArgs::Parse("bench model", arg_words, BenchModelSpec()));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bench model takes one network name (",
        absl::StrJoin(workloads::networks::NetworkNames(), ", "),
        ") or a FILE.onnx of `tessel export`, got ", args.positional().size(), " words"));
  }
  // A file `tessel export` wrote: its network, batch and seed from the metadata.
  std::string name = args.positional()[0];
  std::string onnx_file;
  std::optional<int64_t> file_batch;
  if (absl::EndsWith(name, ".onnx")) {
    TESSEL_ASSIGN_OR_RETURN(const workloads::exported::ExportOrigin origin,
                            workloads::exported::ReadExportOrigin(name));
    if (origin.seed != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " holds the weights of seed ", origin.seed,
                       "; bench model runs libtorch on seed 0's (tessel export without --seed)"));
    }
    onnx_file = name;
    name = origin.network;
    file_batch = origin.batch;
  }
  TESSEL_ASSIGN_OR_RETURN(std::string vs, args.Value("vs", "libtorch"));
  if (vs != "libtorch") {
    return absl::InvalidArgumentError(
        absl::StrCat("--vs '", vs, "': the one baseline of whole networks is libtorch"));
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, args.Int("threads", 2));
  TESSEL_ASSIGN_OR_RETURN(int64_t batch, args.Int("batch", file_batch.value_or(1)));
  if (file_batch && batch != *file_batch) {
    return absl::InvalidArgumentError(
        absl::StrCat("--batch ", batch, ": ", onnx_file, " was exported for batch ", *file_batch));
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t repeat, args.Int("repeat", 7));
  if (threads < 1 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads must be between 1 and 1024, got ", threads));
  }
  if (repeat < 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repeat must be at least 5 (a median of fewer means little), got ", repeat));
  }
  TESSEL_ASSIGN_OR_RETURN(std::string logs, args.Value("log", ""));
  // Read here so that a bad log is the flag's error; the Tessel side reads it again.
  TESSEL_ASSIGN_OR_RETURN(std::optional<search::ApplyHistoryBest> history, ReadLogFlag(logs));
  TESSEL_ASSIGN_OR_RETURN(std::string only, args.Value("only", ""));
  if (!only.empty() && only != "tessel" && only != "libtorch") {
    return absl::InvalidArgumentError(
        absl::StrCat("--only '", only, "': the sides are tessel and libtorch"));
  }
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("--batch must be >= 1, got ", batch));

  experiments::CompareOptions options;
  options.threads = static_cast<int>(threads);
  options.batch = batch;
  options.repeat = static_cast<int>(repeat);
  options.warmup = 3;
  if (history) options.logs = absl::StrSplit(logs, ',', absl::SkipEmpty());
  std::vector<experiments::ModelVariant> variants;
  if (only != "libtorch") variants.push_back({.name = "tessel", .onnx_file = onnx_file});
  if (only != "tessel") variants.push_back({.name = "libtorch", .libtorch = true});
  TESSEL_ASSIGN_OR_RETURN(experiments::ModelComparison c,
                          experiments::CompareModels(name, variants, options));
  for (const experiments::VariantTiming& v : c.variants) {
    for (const std::string& warning : v.warnings) out << "warning: " << warning << "\n";
  }
  out << experiments::BenchMetadata(c.target, options.threads);
  const std::string shown =
      onnx_file.empty() ? name : absl::StrCat(name, " (Tessel's side from ", onnx_file, ")");
  if (only.empty()) {
    out << absl::StrFormat(
        "network: %s, batch %d, %d kernels, outputs equal libtorch's (atol %g, rtol %g)\n", shown,
        batch, c.variants[0].kernels, options.tolerance.atol, options.tolerance.rtol);
  } else {
    out << absl::StrFormat("network: %s, batch %d, %s alone\n", shown, batch, only);
  }
  out << "each side in a process of its own, timed while the other is idle\n";
  for (const experiments::VariantTiming& v : c.variants) {
    out << absl::StrFormat(
        "%-8s %9.3f ms (median of %d%s repeats; the other side's CPU use during them: max "
        "%.1f%%)\n",
        v.name, runtime::Median(v.seconds) * 1e3, repeat, only.empty() ? " interleaved" : "",
        v.max_interference * 100);
  }
  if (only.empty()) {
    out << absl::StrFormat("tessel/libtorch speedup = %.3f\n",
                           experiments::PairedSpeedup(c.variants[1], c.variants[0]));
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
