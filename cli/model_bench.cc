#include "cli/model_bench.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <optional>

#include "cli/bench_target.h"
#include "cli/command_args.h"
#include "cli/model_commands.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/status_macros.h"
#include "experiments/compare_models.h"
#include "workloads/networks/network.h"

namespace tessel::cli {
namespace {

ArgSpec BenchModelSpec() {
  return ArgSpec{.flags = {{"vs", "the baseline: libtorch"},
                           {"threads", "threads for both sides (default 2)"},
                           {"batch", "batch size (default 1)"},
                           {"log", "tuning logs, comma-separated: each task's best config"},
                           {"repeat", "interleaved timed repeats (default 7)"}},
                 .switches = {},
                 .aliases = {}};
}

}  // namespace

absl::Status BenchModel(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args,
                          CommandArgs::Parse("bench model", arg_words, BenchModelSpec()));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bench model takes one network name (",
                     absl::StrJoin(workloads::networks::NetworkNames(), ", "), "), got ",
                     args.positional().size(), " words"));
  }
  const std::string name = args.positional()[0];
  TESSEL_ASSIGN_OR_RETURN(std::string vs, args.Value("vs", "libtorch"));
  if (vs != "libtorch") {
    return absl::InvalidArgumentError(
        absl::StrCat("--vs '", vs, "': the one baseline of whole networks is libtorch"));
  }
  TESSEL_ASSIGN_OR_RETURN(int64_t threads, args.Int("threads", 2));
  TESSEL_ASSIGN_OR_RETURN(int64_t batch, args.Int("batch", 1));
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
  TESSEL_ASSIGN_OR_RETURN(std::optional<search::ApplyHistoryBest> history, ReadLogFlag(logs));
  if (batch < 1)
    return absl::InvalidArgumentError(absl::StrCat("--batch must be >= 1, got ", batch));

  experiments::CompareOptions options;
  options.threads = static_cast<int>(threads);
  options.batch = batch;
  options.repeat = static_cast<int>(repeat);
  options.warmup = 3;
  options.log = history ? &*history : nullptr;
  TESSEL_ASSIGN_OR_RETURN(
      experiments::ModelComparison c,
      experiments::CompareModels(name, {{.name = "tessel"}, {.name = "libtorch", .libtorch = true}},
                                 options));
  const experiments::VariantTiming& ours = c.variants[0];
  const experiments::VariantTiming& torch = c.variants[1];
  for (const std::string& warning : ours.warnings) out << "warning: " << warning << "\n";
  out << BenchMetadata(c.target, options.threads);
  out << absl::StrFormat(
      "network: %s, batch %d, %d kernels, outputs equal libtorch's (atol %g, "
      "rtol %g)\n",
      name, batch, ours.kernels, options.tolerance.atol, options.tolerance.rtol);
  out << absl::StrFormat("tessel   %9.3f ms (median of %d interleaved repeats)\n",
                         runtime::Median(ours.seconds) * 1e3, repeat);
  out << absl::StrFormat("libtorch %9.3f ms\n", runtime::Median(torch.seconds) * 1e3);
  out << absl::StrFormat("tessel/libtorch speedup = %.3f\n",
                         experiments::PairedSpeedup(torch, ours));
  return absl::OkStatus();
}

}  // namespace tessel::cli
