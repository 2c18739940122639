#pragma once

#include <absl/status/status.h>

#include <ostream>
#include <span>
#include <string>

// `tessel bench offload NETWORK [--to vdla] ...`: the paper's Fig. 21, a network's convolutions
// and dense layers offloaded to the accelerator, against the CPU alone.
//
// The network (workloads/networks) is quantized for the accelerator (driver/quantize_model.h:
// every convolution and dense layer it takes becomes int8, calibrated on --calibration seeded
// inputs of the workload) and compiled three ways for this CPU: the float network, the quantized
// network on the CPU alone, and the quantized network with its int8 layers offloaded
// (CompileOptions::offload). On an input calibration did not see, the offloaded outputs must
// equal the quantized CPU's bit for bit (an error otherwise), and the quantized network's
// distance from the float one is printed (relative L2 error, top-1 agreement over 4 inputs).
//
// Times: --repeat rounds after one of warm-up, the three models run in turn in each round (this
// process, --threads threads); each round's times split into convolutions and the rest from the
// executor's per-step clock. The accelerator's share is its simulated cycles at its stated clock
// (the RTL's cycle count over each run: exact, the same every round); the host's copies to and
// from its DRAM and the simulation's own wall time are not part of it (the bytes copied per
// inference are printed: on the paper's board the two share DRAM). Every other figure is this
// CPU's, measured. Rows: configuration, convolutions ms, other ms, total ms (medians over the
// rounds); the last line is `cpu/offload speedup = S`, the float CPU total over the offloaded
// total.
namespace tessel::cli {

absl::Status BenchOffload(std::span<const std::string> args, std::ostream& out);

}  // namespace tessel::cli
