// ResNet-18's convolutions (Table 2, C2-C12; C1's 3 input channels stay on the CPU as in the
// paper) compiled for VDLA and run on the cycle-accurate RTL, with and without virtual threads:
// per layer the tiling (of four: the largest tile that fits or the one of the most GEMMs per byte
// loaded, each with one copy of the kernel block or with two alternating; the one of fewer cycles),
// cycles, compute utilisation (MACs / (cycles x MACs per cycle)), the
// operational intensity (MACs per byte the DMA moves) and whether every output matches the
// convolution computed on the host. The paper's Fig. 10 measures the same two quantities on its
// accelerator.
//
//   bazel run -c opt //experiments/vdla:table2_bench -- [--layers=C2,C5] [--latency=32]
#include <absl/flags/flag.h>
#include <absl/flags/parse.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <variant>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/codegen/vdla/program.h"
#include "compiler/ops/vdla/conv2d.h"
#include "compiler/ops/vdla/testing/conv2d_check.h"
#include "workloads/table2.h"

ABSL_FLAG(std::string, layers, "C2,C3,C4,C5,C6,C7,C8,C9,C10,C11,C12", "Table 2 layers");

namespace tessel::experiments {
namespace {

using hardware::vdla::Config;
using ops::vdla::Conv2dShape;
using ops::vdla::Conv2dTiling;

// How ChooseTiling ranks the tiles that fit.
enum class Rule {
  kLargestTile,      // the most accumulator entries
  kMostWorkPerByte,  // the most GEMMs per byte one input channel block loads
};

// The best tile (rows x channel blocks) by `rule` whose buffers fit a share of 1 / vthreads of
// each on-chip buffer and whose GEMM micro-ops fit half the micro-op buffer (with the kernel block
// double-buffered: two kernel blocks, and two sets of micro-ops, one per copy), the virtual
// threads over row tiles or else over channel tiles; none when no tiling fits.
std::optional<Conv2dTiling> ChooseTiling(const Conv2dShape& v, const Config& c, int vthreads,
                                         bool double_buffer, Rule rule) {
  std::optional<Conv2dTiling> best;
  double best_score = 0;
  const int blocks = v.o / c.block_out;
  for (bool over_channels : {false, true}) {
    for (int tile_o = 1; tile_o <= blocks; ++tile_o) {
      if (blocks % tile_o != 0) continue;
      if (over_channels && (blocks / tile_o) % vthreads != 0) continue;
      for (int tile_h = 1; tile_h <= v.oh(); ++tile_h) {
        if (v.oh() % tile_h != 0) continue;
        if (!over_channels && (v.oh() / tile_h) % vthreads != 0) continue;
        const int64_t acc = int64_t{tile_h} * v.ow() * tile_o;
        const int64_t inp = int64_t{(tile_h - 1) * v.stride + v.k} * (v.w + 2 * v.pad);
        const int64_t wgt = int64_t{v.k} * v.k * tile_o * (double_buffer ? 2 : 1);
        const int64_t uops = acc * v.k * v.k * (double_buffer ? 2 : 1);
        if (acc * vthreads > c.accumulator_entries() || inp * vthreads > c.input_entries() ||
            wgt * vthreads > c.weight_entries() || uops * vthreads > c.uop_entries() / 2) {
          continue;
        }
        const int64_t loaded = inp * c.block_in + int64_t{v.k} * v.k * tile_o * 256;
        const double score = rule == Rule::kLargestTile
                                 ? static_cast<double>(acc)
                                 : static_cast<double>(acc * v.k * v.k) / loaded;
        if (score > best_score) {
          best_score = score;
          best =
              Conv2dTiling{tile_h, tile_o, vthreads, over_channels && vthreads > 1, double_buffer};
        }
      }
    }
  }
  return best;
}

// Bytes the program's LOADs and STOREs move (micro-op loads included).
int64_t DmaBytes(const codegen::vdla::Program& p, const Config& c) {
  int64_t bytes = 0;
  for (const hardware::vdla::Insn& insn : p.insns) {
    if (const auto* m = std::get_if<hardware::vdla::MemInsn>(&insn)) {
      bytes += int64_t{m->y_size} * m->x_size * codegen::vdla::EntryBytes(c, m->type);
    }
  }
  return bytes;
}

struct Measured {
  Conv2dTiling tiling;
  ops::vdla::testing::Conv2dRun run;
  int64_t dma_bytes = 0;
};

// The layer compiled with `t` and run on the RTL, every output checked.
absl::StatusOr<Measured> Measure(const Conv2dShape& v, const Conv2dTiling& t, const Config& c) {
  absl::StatusOr<ir::PrimFunc> f = ops::vdla::LowerConv2d(v, t, c);
  if (!f.ok()) return f.status();
  absl::StatusOr<codegen::vdla::Program> p = codegen::vdla::EmitProgram(*f, c);
  if (!p.ok()) return p.status();
  absl::StatusOr<ops::vdla::testing::Conv2dRun> run =
      ops::vdla::testing::RunConv2d(v, *p, hardware::vdla::Engine::kRtl, 1);
  if (!run.ok()) return run.status();
  return Measured{t, *run, DmaBytes(*p, c)};
}

int Main() {
  const Config c;
  std::cout << absl::StrFormat(
      "VDLA %dx%dx%d GEMM, RTL simulated by Verilator (cycle counts; the %d MHz clock is the "
      "design's stated one, not measured)\n",
      c.batch, c.block_in, c.block_out, c.clock_mhz);
  std::cout << absl::StrFormat("%-5s %-8s %8s %5s %11s %7s %9s %8s\n", "layer", "threads", "tiling",
                               "wgt", "cycles", "util", "MAC/byte", "correct");
  std::vector<double> utils[2];
  const std::vector<std::string> names = absl::StrSplit(absl::GetFlag(FLAGS_layers), ',');
  for (const std::string& name : names) {
    absl::StatusOr<workloads::Layer> layer = workloads::FindLayer(name);
    if (!layer.ok()) {
      std::cerr << layer.status() << "\n";
      return 1;
    }
    const Conv2dShape v{static_cast<int>(layer->ic), static_cast<int>(layer->oc),
                        static_cast<int>(layer->h),  static_cast<int>(layer->w),
                        static_cast<int>(layer->k),  static_cast<int>(layer->stride),
                        static_cast<int>(layer->pad)};
    for (int vthreads : {1, 2}) {
      // Four tilings (each rule, with one copy of the kernel block and with two), the fastest
      // kept.
      std::optional<Measured> best;
      std::optional<Conv2dTiling> tried[2];  // the last measured, by kernel copies
      for (const auto& [double_buffer, rule] :
           {std::pair{false, Rule::kLargestTile}, std::pair{true, Rule::kLargestTile},
            std::pair{false, Rule::kMostWorkPerByte}, std::pair{true, Rule::kMostWorkPerByte}}) {
        const std::optional<Conv2dTiling> tiling =
            ChooseTiling(v, c, vthreads, double_buffer, rule);
        if (!tiling || (tiling == tried[double_buffer])) continue;  // both rules chose it
        tried[double_buffer] = tiling;
        absl::StatusOr<Measured> m = Measure(v, *tiling, c);
        if (!m.ok()) {
          std::cerr << name << ": " << m.status() << "\n";
          return 1;
        }
        if (!best || m->run.report.cycles < best->run.report.cycles) best = *m;
      }
      if (!best) {
        std::cout << absl::StrFormat("%-5s %-8d %8s (no tiling fits)\n", name, vthreads, "-");
        continue;
      }
      const Conv2dTiling& t = best->tiling;
      const double util = static_cast<double>(v.macs()) /
                          (static_cast<double>(best->run.report.cycles) * c.macs_per_cycle());
      utils[vthreads - 1].push_back(util);
      std::cout << absl::StrFormat(
          "%-5s %-8d %8s %5d %11d %6.1f%% %9.1f %8s\n", name, vthreads,
          absl::StrFormat("%dx%d%s", t.tile_h, t.tile_o, t.vthreads_over_channels ? "c" : ""),
          t.double_buffer_weights ? 2 : 1, best->run.report.cycles, 100 * util,
          static_cast<double>(v.macs()) / best->dma_bytes, best->run.wrong == 0 ? "yes" : "NO");
    }
  }
  for (int k = 0; k < 2; ++k) {
    std::vector<double>& u = utils[k];
    std::sort(u.begin(), u.end());
    const double median = u.empty()      ? 0
                          : u.size() % 2 ? u[u.size() / 2]
                                         : (u[u.size() / 2 - 1] + u[u.size() / 2]) / 2;
    std::cout << absl::StrFormat("median utilization (%d virtual thread%s) = %.3f\n", k + 1,
                                 k ? "s" : "", median);
  }
  return 0;
}

}  // namespace
}  // namespace tessel::experiments

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tessel::experiments::Main();
}
