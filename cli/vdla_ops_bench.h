#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <string>
#include <vector>

#include "compiler/target/target.h"
#include "search/records/apply_history_best.h"
#include "workloads/table2.h"

// `tessel bench ops --suite table2 --target vdla ...` (ops_bench.h dispatches here): each layer as
// the int8 convolution VDLA computes (conv2d_int8.vdla), compiled and run on the cycle-accurate
// RTL simulator, every output checked against libtorch. Two rows per layer (the paper's Fig. 10):
//   off  no latency hiding: one virtual thread, one copy of the kernel block;
//   on   two virtual threads, the kernel block in one or two copies;
// each the fewer cycles of the tilings the rules of conv2d_tiling.h choose (largest tile, most
// work per byte loaded), and with --log a third row, `tuned`: the log's best config. Columns:
// cycles, utilisation (MACs / (cycles x MACs per cycle)), operational intensity (MACs per byte
// the DMA moves), the time at the configuration's stated clock, correct. Layers VDLA does not
// compute (C1's 3 channels, the depthwise D layers) get a line saying why. The last line is
// `median utilization = U` over the `on` rows; an error when any output is wrong.
//
// With an output folder, also Fig. 10: DIR/fig10.csv, a point per row (operational intensity in
// ops per DMA byte, throughput in GOPS at the stated clock, the roof's peak and DRAM bandwidth),
// and DIR/fig10.png, the roofline (experiments/plot.py, matplotlib).
namespace tessel::cli {

struct VdlaBenchOptions {
  const search::ApplyHistoryBest* history = nullptr;  // null: no tuned rows
  std::string log;                                    // its files, for the header
  std::string out_dir;                                // "": no figure
};

absl::Status BenchVdlaOps(const target::Target& target, const std::vector<workloads::Layer>& layers,
                          const VdlaBenchOptions& options, std::ostream& out);

}  // namespace tessel::cli
