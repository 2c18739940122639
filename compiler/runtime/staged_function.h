#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <vector>

#include "compiler/runtime/module.h"

// A device module's function called with host tensors: the host side of a model whose steps run
// on different devices (an accelerator's convolutions among the CPU's kernels).
//
// StageOnDevice gives a host function (device type kDLCPU) of the device function's signature.
// It allocates, once, one device buffer per tensor parameter; each call copies the host tensors
// the function reads into their buffers, runs the device function, waits for the device, and
// copies the tensors it writes (ParamSpec::written) back into the host tensors. A `resident`
// parameter holds what never changes between calls (a layer's weights): it is copied at the first
// call only, so later calls must pass the same contents. Every tensor parameter must have a
// constant, compact shape (the accelerator's programs do). Calls are serialised.
//
// Each StageOnDevice makes buffers of its own: a kernel that several steps share, each with
// other weights, is staged once per step.
namespace tessel::runtime {

// Bytes moved by a staged function's calls so far.
struct StagedTraffic {
  int64_t calls = 0;
  int64_t bytes_in = 0;   // host to device (resident parameters once)
  int64_t bytes_out = 0;  // device to host
};

class StagedFunction {
 public:
  // InvalidArgument when resident's size is not the number of parameters, a resident parameter
  // is written, or a tensor's shape is not constant; the device API's allocation errors (naming
  // the parameter). `device` is where the device function's tensors live.
  static absl::StatusOr<StagedFunction> Create(Function device_function, DLDevice device,
                                               std::vector<bool> resident);

  // The host function (valid while any copy of it or of this object lives).
  const Function& host() const { return host_; }
  StagedTraffic traffic() const;

  struct State;  // opaque: the buffers and the device function

 private:
  Function host_;
  std::shared_ptr<State> state_;
};

}  // namespace tessel::runtime
