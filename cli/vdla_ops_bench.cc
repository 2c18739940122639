#include "cli/vdla_ops_bench.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <filesystem>
#include <optional>
#include <variant>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/ops/template.h"
#include "compiler/ops/vdla/conv2d_tiling.h"
#include "compiler/runtime/timer.h"
#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"
#include "experiments/plot.h"
#include "hardware/vdla/driver/program.h"
#include "search/measure/torch_reference.h"
#include "search/measure/vdla_measure.h"
#include "workloads/layer_task.h"

namespace tessel::cli {
namespace {

using ops::vdla::Conv2dShape;
using ops::vdla::Conv2dTiling;
using ops::vdla::TilingRule;

struct Row {
  search::Config config;
  search::MeasureResult result;
  int wrong = 0;  // candidates with wrong outputs, the fastest or not
};

// A point of Fig. 10.
struct RooflinePoint {
  std::string layer, hiding;
  double ops_per_byte, gops;
};

// DIR/fig10.csv and DIR/fig10.png: the points under the roof of c's GEMM peak and DRAM port.
absl::Status WriteRoofline(const std::vector<RooflinePoint>& points,
                           const hardware::vdla::Config& c, const std::string& dir,
                           std::ostream& out) {
  const double peak_gops = 2.0 * static_cast<double>(c.macs_per_cycle()) * c.clock_mhz * 1e-3;
  const double gbytes_per_s =
      static_cast<double>(hardware::vdla::Config::kDramBeatBytes) * c.clock_mhz * 1e-3;
  std::string csv = "layer,hiding,ops_per_byte,gops,peak_gops,gbytes_per_s\n";
  for (const RooflinePoint& p : points) {
    absl::StrAppendFormat(&csv, "%s,%s,%.4f,%.4f,%.4f,%.4f\n", p.layer, p.hiding, p.ops_per_byte,
                          p.gops, peak_gops, gbytes_per_s);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out '", dir, "': cannot create the folder: ", ec.message()));
  }
  const std::string csv_path = (std::filesystem::path(dir) / "fig10.csv").string();
  TESSEL_RETURN_IF_ERROR(support::WriteFileAtomically(csv_path, csv));
  TESSEL_ASSIGN_OR_RETURN(const std::string script, experiments::FindPlotScript());
  TESSEL_ASSIGN_OR_RETURN(
      const std::string png,
      experiments::RunRooflinePlotScript(
          script, csv_path, dir,
          absl::StrFormat("VDLA roofline: ResNet-18 layers (%d MHz, %d MACs a cycle)", c.clock_mhz,
                          c.macs_per_cycle()),
          "fig10.png"));
  out << absl::StrFormat("wrote %s and %s (Fig. 10: roof %.1f GOPS, %.1f GB/s)\n", csv_path,
                         (std::filesystem::path(dir) / png).string(), peak_gops, gbytes_per_s);
  return absl::OkStatus();
}

// Bytes the config's program moves by DMA (LOADs and STOREs, micro-ops included).
absl::StatusOr<int64_t> DmaBytes(const search::Task& task, const search::Config& config,
                                 const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  TESSEL_ASSIGN_OR_RETURN(ops::OpProgram p, t->instantiate(config, task.args, facts));
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc f, transforms::Lower(p.schedule, p.args, "conv2d"));
  TESSEL_ASSIGN_OR_RETURN(hardware::vdla::Program program,
                          codegen::vdla::EmitProgram(f, *facts.vdla));
  int64_t bytes = 0;
  for (const hardware::vdla::Insn& insn : program.insns) {
    if (const auto* m = std::get_if<hardware::vdla::MemInsn>(&insn)) {
      bytes += int64_t{m->y_size} * m->x_size * hardware::vdla::EntryBytes(*facts.vdla, m->type);
    }
  }
  return bytes;
}

// The fastest correct of `configs`, or the first failure when none is.
absl::StatusOr<Row> Fastest(search::MeasureFn& measure, const search::Task& task,
                            const std::vector<search::Config>& configs) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::MeasureResult> results, measure(task, configs));
  std::optional<Row> best;
  int wrong = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const search::MeasureResult& r = results[i];
    wrong += r.error == search::ErrorKind::kWrongAnswer;
    if (!best || (r.error == search::ErrorKind::kNone &&
                  (best->result.error != search::ErrorKind::kNone ||
                   search::MeanCost(r) < search::MeanCost(best->result)))) {
      best = Row{configs[i], r};
    }
  }
  best->wrong = wrong;
  return *best;
}

}  // namespace

absl::Status BenchVdlaOps(const target::Target& target, const std::vector<workloads::Layer>& layers,
                          const VdlaBenchOptions& options, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(target));
  const hardware::vdla::Config& c = *facts.vdla;
  search::MeasureFn measure = search::VdlaMeasureFn({.reference = search::TorchReferenceFn()});
  out << absl::StrFormat(
      "target: %s (GEMM %dx%d by %dx%d, int%d x int%d -> int%d; buffers: input %d KiB, weight %d "
      "KiB, accumulator %d KiB, micro-op %d KiB)\n",
      target.ToString(), c.batch, c.block_in, c.block_in, c.block_out, c.input_bits, c.weight_bits,
      c.accumulator_bits, c.input_buffer_bytes / 1024, c.weight_buffer_bytes / 1024,
      c.accumulator_buffer_bytes / 1024, c.uop_buffer_bytes / 1024);
  out << absl::StrFormat(
      "device: the RTL simulated by Verilator (cycle counts; the %d MHz clock is the design's "
      "stated one, not measured)\n",
      c.clock_mhz);
  out << "suite: table2 (the paper's Table 2) as conv2d_int8, batch 1, checked against libtorch"
      << (options.history ? ", with the best configs of " + options.log : std::string()) << "\n\n";
  out << absl::StrFormat("%-5s %-6s %-22s %11s %7s %9s %9s  %s\n", "layer", "hiding", "config",
                         "cycles", "util", "MAC/byte", "ms", "correct");
  std::vector<double> utils, utils_off;
  std::vector<RooflinePoint> points;
  bool all_correct = true;
  for (const workloads::Layer& layer : layers) {
    absl::StatusOr<search::Task> task = workloads::LayerTask(layer.name, facts);
    if (!task.ok()) {
      out << absl::StrFormat("%-5s not on VDLA: %s\n", layer.name, task.status().message());
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(const search::ConfigSpace space, search::Space(*task, facts));
    const Conv2dShape v{static_cast<int>(layer.ic), static_cast<int>(layer.oc),
                        static_cast<int>(layer.h),  static_cast<int>(layer.w),
                        static_cast<int>(layer.k),  static_cast<int>(layer.stride),
                        static_cast<int>(layer.pad)};
    // Each row's candidates: one thread and one kernel copy (off), two threads with one or two
    // (on), by both rules; a tiling both rules choose is measured once.
    std::vector<std::pair<std::string, std::vector<search::Config>>> rows;
    for (const bool hiding : {false, true}) {
      std::vector<search::Config> configs;
      for (const bool double_buffer :
           hiding ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
        for (const TilingRule rule : {TilingRule::kLargestTile, TilingRule::kMostWorkPerByte}) {
          const std::optional<Conv2dTiling> t =
              ops::vdla::ChooseConv2dTiling(v, c, hiding ? 2 : 1, double_buffer, rule);
          if (!t) continue;
          TESSEL_ASSIGN_OR_RETURN(search::Config config,
                                  space.FromJson({{"knobs", ops::vdla::TilingKnobs(*t)}}));
          bool seen = false;
          for (const search::Config& other : configs) seen = seen || other == config;
          if (!seen) configs.push_back(config);
        }
      }
      rows.emplace_back(hiding ? "on" : "off", configs);
    }
    if (options.history) {
      if (std::optional<search::Record> best = options.history->Best(task->Key())) {
        TESSEL_ASSIGN_OR_RETURN(search::Config config, space.FromJson(best->config));
        rows.emplace_back("tuned", std::vector<search::Config>{config});
      }
    }
    for (const auto& [label, configs] : rows) {
      if (configs.empty()) {
        out << absl::StrFormat("%-5s %-6s (no tiling fits the buffers)\n", layer.name, label);
        continue;
      }
      TESSEL_ASSIGN_OR_RETURN(Row row, Fastest(measure, *task, configs));
      const search::MeasureResult& r = row.result;
      all_correct = all_correct && row.wrong == 0;
      const nlohmann::json k = row.config.ToJson()["knobs"];
      const std::string config_text =
          absl::StrFormat("%dx%d %dt%s %dw", k["tile_h"].get<int>(), k["tile_o"].get<int>(),
                          k["vthreads"].get<int>(), k["vthread_axis"].get<int>() == 1 ? "c" : "",
                          k["double_buffer"].get<int>() + 1);
      if (r.error != search::ErrorKind::kNone) {
        out << absl::StrFormat("%-5s %-6s %-22s %s: %s\n", layer.name, label, config_text,
                               search::ErrorKindName(r.error), r.error_message);
        continue;
      }
      const double seconds = search::MeanCost(r);
      const double cycles = seconds * c.clock_mhz * 1e6;
      const double util =
          static_cast<double>(v.macs()) / (cycles * static_cast<double>(c.macs_per_cycle()));
      TESSEL_ASSIGN_OR_RETURN(const int64_t bytes, DmaBytes(*task, row.config, facts));
      if (label == "on") utils.push_back(util);
      if (label == "off") utils_off.push_back(util);
      const double macs_per_byte = static_cast<double>(v.macs()) / static_cast<double>(bytes);
      points.push_back({layer.name, label, 2 * macs_per_byte,
                        2.0 * static_cast<double>(v.macs()) / seconds * 1e-9});
      out << absl::StrFormat("%-5s %-6s %-22s %11.0f %6.1f%% %9.1f %9.3f  %s\n", layer.name, label,
                             config_text, cycles, 100 * util, macs_per_byte, seconds * 1e3,
                             row.wrong == 0 ? "yes" : absl::StrCat("NO (", row.wrong, " tilings)"));
      out.flush();
    }
  }
  out << "\n(config: rows x channel blocks per tile, virtual threads (c: over channel tiles), "
         "kernel copies; utilization = MACs / (cycles x "
      << c.macs_per_cycle() << " MACs per cycle); MAC/byte: per byte the DMA moves)\n";
  if (!utils_off.empty()) {
    out << absl::StrFormat("median utilization without latency hiding = %.3f\n",
                           runtime::Median(utils_off));
  }
  if (!utils.empty()) {
    out << absl::StrFormat("median utilization = %.3f\n", runtime::Median(utils));
  }
  if (!all_correct) {
    return absl::InternalError("some layers computed wrong results (see the rows above)");
  }
  if (!options.out_dir.empty() && !points.empty()) {
    TESSEL_RETURN_IF_ERROR(WriteRoofline(points, c, options.out_dir, out));
  }
  return absl::OkStatus();
}

}  // namespace tessel::cli
