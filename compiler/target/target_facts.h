#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/target/gpu_facts.h"
#include "compiler/target/target.h"
#include "compiler/target/vdla_config.h"

// What a schedule template needs to know about the machine it schedules for, computed once from
// the target (DescribeTarget) and then passed along: nothing here is read from process state.
namespace tessel::target {

struct TargetFacts {
  Target target;  // the target the program will be built for
  // For the host program of a device target, and for CPU targets:
  int vector_bits = 128;           // widest vector register
  int vector_registers = 16;       // vector registers of that width (32 with AVX-512, 16 with AVX2)
  int cores = 1;                   // threads the program may use
  int64_t l1_bytes = 32 * 1024;    // per core, data
  int64_t l2_bytes = 1024 * 1024;  // per core
  std::optional<GpuFacts> gpu;     // cuda and opencl targets
  std::optional<VdlaConfig> vdla;  // vdla targets

  // float32 lanes of one vector register.
  int lanes() const { return vector_bits / 32; }

  // One line for `tessel list` and messages, e.g. "256-bit vectors x 16, 2 cores, L1 32 KiB,
  // L2 512 KiB", then the GPU's or VDLA's facts.
  std::string ToString() const;
};

// The facts of a target:
//  - llvm: vector width and registers from the resolved CPU features; cores from -num-cores, else
//    this machine's hardware threads for a host target and 1 for another; caches from the system
//    for a host target, else the defaults above. A caller that runs programs on a given number of
//    threads sets `cores` to it.
//  - cuda, opencl: DescribeGpu (gpu_facts.h); the CPU facts of its -host.
//  - vdla: the accelerator's parameters from -config (vdla_config.h), the defaults without it;
//    the CPU facts of its -host.
// Errors: an llvm target that does not resolve, an unreadable or invalid VDLA config.
absl::StatusOr<TargetFacts> DescribeTarget(const Target& target);

}  // namespace tessel::target
