#include "cli/offload_bench.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "cli/command_args.h"
#include "cli/model_commands.h"
#include "compiler/driver/compile_model.h"
#include "compiler/driver/quantize_model.h"
#include "compiler/runtime/timer.h"
#include "compiler/runtime/vdla/vdla_module.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/host_target.h"
#include "compiler/target/target_facts.h"
#include "workloads/networks/network.h"

namespace tessel::cli {
namespace {

using runtime::NDArray;

ArgSpec BenchOffloadSpec() {
  return ArgSpec{
      .flags = {{"to", "the accelerator: a vdla target (default vdla)"},
                {"threads", "threads of the CPU's kernels (default 2)"},
                {"calibration", "seeded inputs the scales are calibrated on (default 4)"},
                {"repeat", "timed rounds after one of warm-up (default 5)"},
                {"log", "tuning logs for the CPU's kernels, comma-separated"}},
      .switches = {},
      .aliases = {}};
}

// Seeds of the inputs: calibration from 1000, the checks and timing from 1 (unseen).
constexpr uint32_t kCalibrationSeed = 1000;

// One model, run and timed: per round, the seconds of its layers (convolutions and dense layers)
// and of the rest.
struct Side {
  std::string name;
  driver::CompiledModel model;
  std::optional<runtime::GraphExecutor> executor;
  std::vector<bool> layer_step;  // per step: a convolution or dense layer (float or int8)
  std::vector<double> layer_ms, other_ms, accelerator_ms, simulation_s;
  int64_t cycles = 0, macs = 0;  // the accelerator's, in the last run
};

absl::StatusOr<std::vector<NDArray>> RunAndTime(Side& side, const std::vector<NDArray>& input,
                                                int clock_mhz, bool record) {
  std::vector<double> seconds;
  const runtime::vdla::RunTotals before = runtime::vdla::Totals();
  TESSEL_ASSIGN_OR_RETURN(std::vector<NDArray> out, side.executor->Run(input, &seconds));
  const runtime::vdla::RunTotals after = runtime::vdla::Totals();
  side.cycles = after.cycles - before.cycles;
  side.macs = after.macs - before.macs;
  if (!record) return out;
  double layer = 0, other = 0, simulated = 0;
  for (size_t i = 0; i < seconds.size(); ++i) {
    const driver::CompiledKernel& k =
        side.model.kernels[static_cast<size_t>(side.model.steps[i].kernel)];
    if (k.offloaded) {
      simulated += seconds[i];
    } else {
      (side.layer_step[i] ? layer : other) += seconds[i] * 1e3;
    }
  }
  const double accelerator = static_cast<double>(side.cycles) / (clock_mhz * 1e3);
  side.layer_ms.push_back(layer + accelerator);
  side.other_ms.push_back(other);
  side.accelerator_ms.push_back(accelerator);
  side.simulation_s.push_back(simulated);
  return out;
}

double RelativeError(const NDArray& got, const NDArray& want) {
  double err = 0, norm = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double w = want.data<float>()[i], g = got.data<float>()[i];
    err += (g - w) * (g - w);
    norm += w * w;
  }
  return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

int64_t ArgMax(const NDArray& a) {
  const float* p = a.data<float>();
  return std::max_element(p, p + a.NumElements()) - p;
}

// Bytes a run copies between the host and the accelerator: each offloaded step's inputs that
// are not parameters, and its outputs.
int64_t CopiedBytes(const driver::CompiledModel& m) {
  int64_t bytes = 0;
  auto size = [](const runtime::TensorDesc& t) {
    int64_t n = (t.dtype.bits * t.dtype.lanes + 7) / 8;
    for (int64_t d : t.shape) n *= d;
    return n;
  };
  for (const driver::CompiledStep& s : m.steps) {
    if (!m.kernels[static_cast<size_t>(s.kernel)].offloaded) continue;
    for (const runtime::KernelArg& a : s.args) {
      if (a.source != runtime::KernelArg::Source::kParameter) bytes += size(a.type);
    }
    for (const runtime::TensorDesc& r : s.results) bytes += size(r);
  }
  return bytes;
}

}  // namespace

absl::Status BenchOffload(std::span<const std::string> arg_words, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(CommandArgs args,
                          CommandArgs::Parse("bench offload", arg_words, BenchOffloadSpec()));
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bench offload takes one network name (",
                     absl::StrJoin(workloads::networks::NetworkNames(), ", "), "), got ",
                     args.positional().size(), " words"));
  }
  const std::string name = args.positional()[0];
  TESSEL_ASSIGN_OR_RETURN(const std::string to, args.Value("to", "vdla"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t threads, args.Int("threads", 2));
  TESSEL_ASSIGN_OR_RETURN(const int64_t calibration, args.Int("calibration", 4));
  TESSEL_ASSIGN_OR_RETURN(const int64_t repeat, args.Int("repeat", 5));
  TESSEL_ASSIGN_OR_RETURN(const std::string logs, args.Value("log", ""));
  if (threads < 1) return absl::InvalidArgumentError("--threads must be >= 1");
  if (calibration < 1) return absl::InvalidArgumentError("--calibration must be >= 1");
  if (repeat < 1) return absl::InvalidArgumentError("--repeat must be >= 1");
  absl::StatusOr<target::Target> accelerator = target::Target::Parse(to);
  if (!accelerator.ok())
    return absl::InvalidArgumentError(absl::StrCat("--to: ", accelerator.status().message()));
  TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(*accelerator));
  if (!facts.vdla) {
    return absl::InvalidArgumentError(
        absl::StrCat("--to '", to, "': not an accelerator this bench offloads to (vdla)"));
  }
  TESSEL_ASSIGN_OR_RETURN(std::optional<search::ApplyHistoryBest> history, ReadLogFlag(logs));
  const search::ApplyHistoryBest* log = history ? &*history : nullptr;

  TESSEL_ASSIGN_OR_RETURN(const graph::Graph g, workloads::networks::BuildNetwork(name, {}));
  std::vector<std::vector<NDArray>> calibration_inputs;
  for (int64_t k = 0; k < calibration; ++k) {
    TESSEL_ASSIGN_OR_RETURN(
        std::vector<NDArray> in,
        workloads::networks::NetworkInputs(name, g, kCalibrationSeed + static_cast<uint32_t>(k)));
    calibration_inputs.push_back(std::move(in));
  }
  TESSEL_ASSIGN_OR_RETURN(const driver::QuantizedModel q,
                          driver::QuantizeForAccelerator(g, *accelerator, calibration_inputs));
  out << absl::StrFormat("network %s: %d of %d layers (convolutions and dense) int8 on %s", name,
                         q.quantized, q.layers, accelerator->ToString());
  out << (q.kept_float.empty()
              ? "\n"
              : absl::StrCat("; float32 on the CPU: ", absl::StrJoin(q.kept_float, "; "), "\n"));

  const target::Target host = target::NativeTarget();
  std::vector<Side> sides(3);
  sides[0].name = "CPU alone, float32";
  sides[1].name = "CPU alone, int8 layers";
  sides[2].name = absl::StrCat("CPU + ", accelerator->kind(), " (int8 layers)");
  for (size_t s = 0; s < sides.size(); ++s) {
    const graph::Graph& model_graph = s == 0 ? g : q.graph;
    driver::CompileOptions options{.run_threads = static_cast<int>(threads)};
    if (s == 2) options.offload = to;
    absl::StatusOr<driver::CompiledModel> m = driver::Compile(model_graph, host, log, options);
    if (!m.ok()) {
      return absl::Status(m.status().code(),
                          absl::StrCat(sides[s].name, ": ", m.status().message()));
    }
    sides[s].model = *std::move(m);
    sides[s].layer_step = driver::LayerSteps(sides[s].model);
    TESSEL_ASSIGN_OR_RETURN(
        runtime::GraphExecutor e,
        driver::MakeExecutor(sides[s].model, {.threads = static_cast<int>(threads)}));
    sides[s].executor.emplace(std::move(e));
    out << absl::StrFormat("%s: %d kernels (%d offloaded), compiled in %.1f s\n", sides[s].name,
                           sides[s].model.kernels.size(), sides[s].model.NumOffloaded(),
                           sides[s].model.stats.total);
  }

  // Correctness: bit for bit against the CPU, and the distance from float32.
  int agree = 0;
  double worst_error = 0;
  constexpr int kChecks = 4;
  for (int k = 0; k < kChecks; ++k) {
    TESSEL_ASSIGN_OR_RETURN(const std::vector<NDArray> input,
                            workloads::networks::NetworkInputs(name, g, 1 + k));
    TESSEL_ASSIGN_OR_RETURN(std::vector<NDArray> f, RunAndTime(sides[0], input, 0, false));
    TESSEL_ASSIGN_OR_RETURN(std::vector<NDArray> c, RunAndTime(sides[1], input, 0, false));
    worst_error = std::max(worst_error, RelativeError(c[0], f[0]));
    agree += ArgMax(c[0]) == ArgMax(f[0]) ? 1 : 0;
    if (k > 0) continue;  // the accelerator's run is slow: one input
    TESSEL_ASSIGN_OR_RETURN(std::vector<NDArray> a, RunAndTime(sides[2], input, 0, false));
    for (size_t o = 0; o < c.size(); ++o) {
      if (a[o].NumBytes() != c[o].NumBytes() ||
          std::memcmp(a[o].data<void>(), c[o].data<void>(), c[o].NumBytes()) != 0) {
        return absl::InternalError(absl::StrCat(
            "output ", o, " of the offloaded network differs from the CPU's: not bit for bit"));
      }
    }
  }
  out << absl::StrFormat(
      "outputs: offloaded = CPU-alone int8, bit for bit; int8 against float32 on %d unseen "
      "inputs: relative L2 error at most %.4f, top-1 the same on %d of %d\n",
      kChecks, worst_error, agree, kChecks);

  TESSEL_ASSIGN_OR_RETURN(const std::vector<NDArray> input,
                          workloads::networks::NetworkInputs(name, g, 1));
  const int clock = facts.vdla->clock_mhz;
  for (int64_t r = 0; r <= repeat; ++r) {
    for (Side& side : sides) {
      TESSEL_RETURN_IF_ERROR(RunAndTime(side, input, clock, r > 0).status());
    }
  }
  const Side& accelerated = sides[2];
  const hardware::vdla::Config& c = *facts.vdla;
  const double macs_per_cycle = static_cast<double>(c.batch) * c.block_in * c.block_out;
  out << absl::StrFormat(
      "CPU: %s, %d threads; accelerator: %s at %d MHz, %d cycles per inference (%.3f ms, "
      "utilization %.3f), %.2f MB copied between host memory and its DRAM per "
      "inference, the RTL simulation %.1f s of wall time per inference\n",
      sides[0].model.facts.target.ToString(), threads, accelerator->ToString(), clock,
      accelerated.cycles, static_cast<double>(accelerated.cycles) / (clock * 1e3),
      accelerated.cycles > 0
          ? static_cast<double>(accelerated.macs) / (macs_per_cycle * accelerated.cycles)
          : 0,
      static_cast<double>(CopiedBytes(accelerated.model)) / 1e6,
      runtime::Median(accelerated.simulation_s));
  out << absl::StrFormat("%-42s %12s %10s %10s\n", "configuration", "layers ms", "other ms",
                         "total ms");
  std::vector<double> totals_ms;
  for (const Side& side : sides) {
    const double layer = runtime::Median(side.layer_ms), other = runtime::Median(side.other_ms);
    totals_ms.push_back(layer + other);
    out << absl::StrFormat("%-42s %12.3f %10.3f %10.3f\n", side.name, layer, other, layer + other);
  }
  out << absl::StrFormat(
      "(medians over %d rounds; the accelerator's layers at its clock, %.3f ms, "
      "the rest measured on this CPU)\n",
      repeat, runtime::Median(accelerated.accelerator_ms));
  out << absl::StrFormat("cpu/offload speedup = %.3f\n", totals_ms[0] / totals_ms[2]);
  return absl::OkStatus();
}

}  // namespace tessel::cli
