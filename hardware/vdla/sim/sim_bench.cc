// The Verilated VDLA's simulation speed, the benchmark of issue #18:
//
//   sim_bench [--m=128] [--k=256] [--n=256] [--repeat=10] [--latency=32]
//
// runs the tiled int8 matrix product C = A . W^T (testing/programs.h; m x k by n x k) `repeat`
// times on the RTL and prints the cycles of one run, the GEMM unit's utilisation (MACs done over
// cycles x MACs a cycle), and the simulated cycles per second of wall time, the functional
// simulator's time for the same program beside it.
#include <absl/strings/numbers.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "hardware/vdla/fsim/fsim.h"
#include "hardware/vdla/sim/rtl_sim.h"
#include "hardware/vdla/testing/programs.h"

namespace tessel::hardware::vdla {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int Run(int argc, char** argv) {
  int m = 128, k = 256, n = 256, repeat = 10, latency = 32;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    int value = 0;
    if (eq == std::string::npos || !absl::SimpleAtoi(arg.substr(eq + 1), &value) || value < 1) {
      std::fprintf(stderr, "sim_bench: bad argument %s\n", argv[i]);
      return 2;
    }
    const std::string key = arg.substr(0, eq);
    if (key == "--m")
      m = value;
    else if (key == "--k")
      k = value;
    else if (key == "--n")
      n = value;
    else if (key == "--repeat")
      repeat = value;
    else if (key == "--latency")
      latency = value;
    else
      return std::fprintf(stderr, "sim_bench: unknown argument %s\n", argv[i]), 2;
  }
  const testing::Matmul mm = testing::TiledMatmul(m, k, n, 1);
  const std::vector<EncodedInsn> program = mm.program.Encoded();
  RtlResult last;
  int64_t cycles = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    std::vector<uint8_t> dram = mm.program.dram;
    absl::StatusOr<RtlResult> result =
        SimulateRtl(Config{}, program, dram, {.memory_latency = latency});
    if (!result.ok()) return std::fprintf(stderr, "%s\n", result.status().ToString().c_str()), 1;
    last = *result;
    cycles += result->cycles;
  }
  const double rtl_seconds = SecondsSince(start);
  const auto fsim_start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    std::vector<uint8_t> dram = mm.program.dram;
    if (!Simulate(Config{}, program, dram).ok()) return 1;
  }
  const double fsim_seconds = SecondsSince(fsim_start);
  std::printf("matmul %dx%dx%d, memory latency %d: %lld cycles a run, GEMM utilisation %.1f%%\n", m,
              k, n, latency, static_cast<long long>(last.cycles),
              100.0 * last.gemm_steps / last.cycles);
  std::printf("RTL: %d runs in %.3f s = %.0f simulated cycles/s; fsim: %.3f s\n", repeat,
              rtl_seconds, cycles / rtl_seconds, fsim_seconds);
  return 0;
}

}  // namespace
}  // namespace tessel::hardware::vdla

int main(int argc, char** argv) { return tessel::hardware::vdla::Run(argc, argv); }
