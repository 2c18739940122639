#pragma once

#include <absl/status/status.h>
#include <dlpack/dlpack.h>

// Whether code can run on a device here: OK when the device API of its type is linked into this
// program and the device takes a small allocation (freed at once); otherwise that API's error
// ("no CUDA driver: ...", "no OpenCL platform: ...") or the registry's (no runtime for the type
// linked). Commands and tests ask before they run device code, so that a machine without the
// device reports it once, clearly.
namespace tessel::runtime {

absl::Status ProbeDevice(DLDevice device);

}  // namespace tessel::runtime
