#include "experiments/bench_target.h"

#include <absl/strings/str_format.h>

#include "compiler/runtime/device_probe.h"
#include "compiler/target/llvm_target.h"
#include "compiler/target/target.h"
#include "compiler/target/target_device.h"
#include "hardware/host/machine.h"

namespace tessel::experiments {

std::string DeviceNote(const target::Target& target) {
  const absl::Status device = runtime::ProbeDevice(target::TargetDevice(target));
  if (!device.ok()) {
    return absl::StrCat("none here (", device.message(), "): built and checked only");
  }
  if (target.kind() == "cuda") return "a CUDA GPU, timed with CUDA events";
  return "this machine's OpenCL device; PoCL runs kernels on the CPU, so these times are a "
         "CPU's, not a GPU's";
}

std::string BenchMetadata(const target::Target& target, int threads) {
  if (target.kind() == "cuda" || target.kind() == "opencl") {
    return absl::StrFormat("machine: %s\ntarget: %s, host threads: %d\ndevice: %s\n",
                           hardware::DescribeHost(), target.ToString(), threads,
                           DeviceNote(target));
  }
  if (target.kind() == "vdla") {
    return absl::StrFormat(
        "machine: %s\ntarget: %s, host threads: %d\ndevice: VDLA's RTL simulated by Verilator "
        "(cycle counts at the design's stated clock)\n",
        hardware::DescribeHost(), target.ToString(), threads);
  }
  std::string cpu = "?";
  if (absl::StatusOr<target::LlvmTarget> t = target::ResolveLlvmTarget(target); t.ok()) {
    cpu = t->cpu;
  }
  return absl::StrFormat("machine: %s\ntarget: %s (cpu %s), threads: %d\n",
                         hardware::DescribeHost(), target.ToString(), cpu, threads);
}

}  // namespace tessel::experiments
