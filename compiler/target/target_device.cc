#include "compiler/target/target_device.h"

namespace tessel::target {

DLDevice TargetDevice(const Target& target) {
  if (target.kind() == "cuda") return {kDLCUDA, 0};
  if (target.kind() == "opencl") return {kDLOpenCL, 0};
  if (target.kind() == "vdla") return {kDLExtDev, 0};
  return {kDLCPU, 0};
}

}  // namespace tessel::target
