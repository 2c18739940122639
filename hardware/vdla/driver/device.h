#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "hardware/vdla/config.h"
#include "hardware/vdla/isa.h"
#include "hardware/vdla/sim/rtl_sim.h"

// The VDLA driver: one device's DRAM (a byte array both simulators read and write, in place of the
// board's physical memory), an allocator over it, and runs of programs on the cycle-accurate RTL
// or on the functional simulator. The runtime's `vdla` device API (compiler/runtime/vdla) and the
// compiler's measurements go through it.
namespace tessel::hardware::vdla {

enum class Engine {
  kRtl,         // the Verilated RTL: cycles counted
  kFunctional,  // the functional simulator: the same results, no cycles, much faster
};

struct DeviceOptions {
  Config config;
  uint64_t dram_bytes = uint64_t{64} << 20;
  Engine engine = Engine::kRtl;
  // The RTL's DRAM read latency, its cycle limit (a run past it is an error naming the last
  // instruction retired) and its deadlock detection.
  RtlOptions rtl;
};

struct RunReport {
  int64_t instructions = 0;  // retired, FINISH included
  int64_t cycles = -1;       // from launch to FINISH; -1 on the functional simulator
  int64_t gemm_steps = -1;   // cycles a GEMM micro-op multiply-accumulated in; -1 on fsim
  int64_t macs = 0;          // multiply-accumulates the program's GEMMs did
};

class Device {
 public:
  // InvalidArgument for a config the hardware cannot be (CheckBuildable) or a DRAM of 0 bytes or
  // more than the simulators address (2 GiB).
  static absl::StatusOr<std::unique_ptr<Device>> Open(const DeviceOptions& options);

  // A DRAM region of `bytes` (0 allowed) at a multiple of `alignment` (a power of two, at least
  // 16: the DRAM beat), as its byte offset; first fit. ResourceExhausted naming the request and
  // the largest free region.
  absl::StatusOr<uint64_t> Allocate(uint64_t bytes, uint64_t alignment = 64);
  // InvalidArgument for an offset Allocate did not return (or returned and was freed).
  absl::Status Free(uint64_t offset);
  uint64_t allocated_bytes() const;

  // DRAM as the host sees it: offset o is data()[o].
  // 4096-byte aligned, so that a region's host address is as aligned as its offset.
  uint8_t* data() { return dram_.get(); }
  uint64_t dram_bytes() const { return options_.dram_bytes; }

  // Runs `program` on the device's DRAM with the device's engine. Errors are the simulators':
  // malformed programs, deadlocks and cycle limits name the instruction.
  absl::StatusOr<RunReport> Run(const std::vector<EncodedInsn>& program);

  const DeviceOptions& options() const { return options_; }

 private:
  explicit Device(const DeviceOptions& options);

  DeviceOptions options_;
  struct FreeDram {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t[], FreeDram> dram_;
  std::map<uint64_t, uint64_t> free_;  // offset -> bytes, disjoint, not adjacent
  std::map<uint64_t, uint64_t> used_;  // offset -> bytes
};

}  // namespace tessel::hardware::vdla
