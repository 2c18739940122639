#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <memory>
#include <string>

#include "compiler/ops/op_args.h"
#include "compiler/runtime/ndarray.h"

// oneDNN (Debian's libdnnl 2.6) as the vendor-library baseline for conv2d: float32, forward
// inference, no bias, on the CPU. oneDNN picks the memory formats its kernel prefers (blocked
// layouts such as nChw16c); the inputs are reordered into them once, outside what is timed, the
// way a framework keeps weights and activations in oneDNN's formats between layers. This header
// keeps oneDNN's own headers out of its users.
namespace tessel::baselines {

struct DnnlConv2dOptions {
  // false: algorithm::convolution_direct; true: convolution_auto (oneDNN may pick Winograd).
  bool auto_algorithm = false;
};

class DnnlConv2d {
 public:
  // A primitive for conv2d with `args` in compiler/ops/OPERATORS.md's form (groups, asymmetric
  // padding and dilation included). Errors name the key of a bad argument; Unimplemented when
  // oneDNN has no kernel for it. The primitive is sized for the thread count in force
  // (SetDnnlThreads) when it is created: create it after setting the count.
  static absl::StatusOr<std::unique_ptr<DnnlConv2d>> Create(const ops::OpArgs& args,
                                                            const DnnlConv2dOptions& options = {});
  ~DnnlConv2d();
  DnnlConv2d(const DnnlConv2d&) = delete;
  DnnlConv2d& operator=(const DnnlConv2d&) = delete;

  // data NCHW and weight O(I/groups)HW, float32, the logical shapes of the arguments (errors name
  // the input), reordered into oneDNN's formats.
  absl::Status SetInputs(const runtime::NDArray& data, const runtime::NDArray& weight);
  // Executes the convolution alone (no reorders) and waits for it. Precondition: SetInputs
  // succeeded.
  void Run();
  // The result of the last Run as a fresh NCHW array.
  runtime::NDArray Output() const;

  // 2 * multiply-accumulates.
  double flops() const;
  // oneDNN's name for the kernel it chose, e.g. "brg:avx512_core" or "jit:avx2".
  std::string implementation() const;
  // The formats chosen for data, weight and output, e.g. "aBcd16b", for logs.
  std::string formats() const;

 private:
  struct State;
  explicit DnnlConv2d(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// oneDNN here runs on OpenMP (DNNL_CPU_RUNTIME == OMP, libgomp). Sets the number of threads the
// calling thread's later oneDNN calls use (OpenMP's nthreads for that thread); threads >= 1.
void SetDnnlThreads(int threads);
// The number of threads oneDNN calls from this thread would use.
int DnnlThreads();
// "OpenMP" (the CPU runtime libdnnl was built with) and its version, for logs.
std::string DnnlRuntimeDescription();

}  // namespace tessel::baselines
