#pragma once

#include <absl/status/statusor.h>

#include <string>
#include <vector>

#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/module.h"
#include "hardware/vdla/driver/device.h"
#include "hardware/vdla/driver/program.h"

// A VDLA module (kind "vdla"): one compiled program per function (hardware/vdla/driver/program.h)
// behind runtime::Module. Its device_type() is kDLExtDev: every argument is a tensor in the DRAM
// of the VDLA device (vdla_device_api.h), each at an offset its program's loads and stores can
// address (a multiple of its entries: the device API's 256-byte alignment is). A call runs the
// program on the device in the caller's thread, one call at a time, and returns when FINISH
// retires; the device's errors (a deadlock, the cycle limit) are the call's, naming the function.
namespace tessel::runtime::vdla {

struct VdlaFunction {
  FunctionSignature signature;  // tensors only, in the program's parameter order
  hardware::vdla::Program program;
};

// InvalidArgument naming the function when a signature does not match its program (a scalar
// parameter, another number of tensors).
absl::StatusOr<Module> MakeVdlaModule(std::vector<VdlaFunction> functions);

// Save (ModuleNode::Save) writes one JSON file:
//   {"format": "tessel-vdla-module", "version": 1, "signatures": [...], "programs": [...]}
// (function_signature.h, program_json.h); LoadVdlaModule reads it back. Errors name the file and
// what is malformed.
absl::StatusOr<Module> LoadVdlaModule(const std::string& path);

// What the last call of any vdla module's function reported (cycles, instructions, MACs);
// NotFound before the first call in this process.
absl::StatusOr<hardware::vdla::RunReport> LastRunReport();

// The sums over every call of any vdla module's function in this process so far (cycles 0 for
// runs on the functional simulator, which counts none): a whole model's accelerator time is the
// difference across its run.
struct RunTotals {
  int64_t runs = 0;
  int64_t cycles = 0;
  int64_t instructions = 0;
  int64_t macs = 0;
};
RunTotals Totals();

}  // namespace tessel::runtime::vdla
