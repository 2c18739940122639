#include "cli/model_bench.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <optional>

#include "baselines/torch/networks/torch_network.h"
#include "cli/bench_target.h"
#include "cli/command_args.h"
#include "cli/model_commands.h"
#include "compiler/driver/compile_model.h"
#include "compiler/ops/op_runner.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
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

// The tolerance of whole networks: float32 sums over thousands of terms in another order (and
// Winograd's transforms) differ from libtorch's by more than single operators do.
constexpr ops::Tolerance kNetworkTolerance{.atol = 2e-3, .rtol = 2e-3};

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

  TESSEL_ASSIGN_OR_RETURN(graph::Graph g,
                          workloads::networks::BuildNetwork(name, {.batch = batch, .seed = 0}));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> inputs,
                          workloads::networks::NetworkInputs(name, g, /*seed=*/1));
  TESSEL_ASSIGN_OR_RETURN(driver::CompiledModel model,
                          driver::Compile(g, "llvm", history ? &*history : nullptr));
  for (const std::string& warning : model.warnings) out << "warning: " << warning << "\n";
  TESSEL_ASSIGN_OR_RETURN(runtime::GraphExecutor ours,
                          driver::MakeExecutor(model, {.threads = static_cast<int>(threads)}));
  TESSEL_ASSIGN_OR_RETURN(baselines::TorchNetwork torch, baselines::MakeTorchNetwork(name, g));
  TESSEL_RETURN_IF_ERROR(baselines::SetTorchThreads(static_cast<int>(threads)));

  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> got, ours.Run(inputs));
  TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> want, torch.Run(inputs));
  absl::Status same = ops::CompareOutputs(got, want, kNetworkTolerance);
  if (!same.ok()) {
    return absl::InternalError(
        absl::StrCat(name, ": Tessel's output differs from libtorch's: ", same.message()));
  }

  TESSEL_ASSIGN_OR_RETURN(std::string target, HostBenchTarget("llvm"));
  out << BenchMetadata(target, static_cast<int>(threads));
  out << absl::StrFormat(
      "network: %s, batch %d, %d kernels, outputs equal libtorch's (atol %g, "
      "rtol %g)\n",
      name, batch, model.kernels.size(), kNetworkTolerance.atol, kNetworkTolerance.rtol);
  absl::Status run_error;
  auto run_ours = [&] {
    absl::StatusOr<std::vector<runtime::NDArray>> r = ours.Run(inputs);
    if (!r.ok() && run_error.ok()) run_error = r.status();
  };
  auto run_torch = [&] {
    absl::StatusOr<std::vector<runtime::NDArray>> r = torch.Run(inputs);
    if (!r.ok() && run_error.ok()) run_error = r.status();
  };
  TESSEL_ASSIGN_OR_RETURN(
      runtime::Interleaved t,
      runtime::TimeInterleaved(run_ours, run_torch,
                               {.number = 1, .repeat = static_cast<int>(repeat), .warmup = 3}));
  TESSEL_RETURN_IF_ERROR(run_error);
  out << absl::StrFormat("tessel   %9.3f ms (median of %d interleaved repeats)\n",
                         runtime::Median(t.a_seconds) * 1e3, repeat);
  out << absl::StrFormat("libtorch %9.3f ms\n", runtime::Median(t.b_seconds) * 1e3);
  out << absl::StrFormat("tessel/libtorch speedup = %.3f\n", t.median_ratio);
  return absl::OkStatus();
}

}  // namespace tessel::cli
