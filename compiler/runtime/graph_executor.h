#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/runtime/module.h"
#include "compiler/runtime/ndarray.h"

// The graph executor: runs a compiled graph, a fixed sequence of kernel calls over the graph's
// values, the way an ExecutorPlan (below) describes it. The plan is target- and operator-agnostic;
// compiler/driver/compiled_model.h builds one from a CompiledModel.
//
// Each step is one kernel call (one graph node, or a fused group of them): its kernel's inputs
// are obtained from the step's logical inputs (as they are, under another shape, packed into
// channel blocks, a parameter prepared at compile time, or, for layouts the plan does not
// describe, the step's host `prepare` transform), the kernel runs, and its outputs become the
// step's logical outputs (directly, under another shape, unpacked from channel blocks, or
// through the host `finish` transform).
//
// Memory: every buffer is allocated once, when the executor is created (Allocate in the .cc):
//   - per storage of the plan's memory plan, one buffer; each value placed in a storage is a
//     view of its first bytes (values without a storage, and every value when the plan has no
//     memory plan, get a buffer of their own). Create checks the placement: values sharing a
//     storage are never live at the same step (a value is live from the step that writes it
//     through the last step that reads it; a step's outputs never share with its inputs), and
//     graph inputs and outputs share with no other value, so they are never overwritten;
//   - one scratch buffer for the packing buffers and the blocked kernel outputs of
//     kUnpackChannels steps, each step's at offsets in it (they live only during their step);
//   - the kernel outputs of kFinish steps, per step.
// Values produced by `finish` and by `prepare` are allocated by those host functions on each run.
//
// Threads: kernels run their parallel loops on ThreadPool::Global() (thread_pool.h).
//
// Devices: with plan.device a GPU, every buffer above is the device's, parameters and constants
// are copied there once at creation, Run copies its inputs there and its outputs back, and a
// step's kernel runs there (kernel launches may return before their work ends; the copy of the
// outputs waits for it). Host transforms still run on the host: a step's prepare or finish
// copies its arrays there and back (slow: GPU templates avoid them). Channel packing and
// unpacking are host-only, an error in a device plan. step_seconds then measures queueing.
namespace tessel::runtime {

// A host transform: tensors in, tensors out (the type of ops::HostTransform).
using HostFn = std::function<absl::StatusOr<std::vector<NDArray>>(const std::vector<NDArray>&)>;

struct TensorDesc {
  std::vector<int64_t> shape;
  DLDataType dtype{kDLFloat, 32, 1};

  bool operator==(const TensorDesc& other) const;
  // "float32[1, 3, 224, 224]"
  std::string ToString() const;
};

// Where one input of a step's kernel comes from.
struct KernelArg {
  enum class Source {
    kInput,         // node input `index` as it is (same type)
    kReshape,       // node input `index` viewed under `type` (same dtype and element count)
    kPackChannels,  // node input `index`, NCHW [n, c, h, w], packed into `type` =
                    // [n, cp / b, h, w, b] (NCHW{b}c); channels c..cp-1 are zero
    kParameter,     // plan parameter `index`
    kPrepare,       // output `index` of the step's prepare on the node's inputs
  };
  Source source = Source::kInput;
  int index = 0;
  TensorDesc type;  // what the kernel takes
};
const char* SourceName(KernelArg::Source s);

// How a step's kernel outputs become its logical outputs.
enum class ResultMode {
  kDirect,          // the kernel writes output k, under results[k]'s shape (same dtype and
                    // element count)
  kUnpackChannels,  // results[k], viewed as blocked[k] = [n, C / b, H, W, b] (NCHW{b}c), is
                    // output k [n, c, h, w] packed: the executor unpacks it, dropping channels
                    // c.. and rows and columns h.., w..
  kFinish,          // finish(kernel outputs) gives the outputs
};
const char* ResultModeName(ResultMode m);

struct ExecutorStep {
  // Every field has a default, so a designated initializer may name any subset.
  std::string name = "";          // the step's name (its nodes'), for messages
  Function kernel = {};           // arguments: its inputs (args), then its outputs (results)
  std::vector<int> inputs = {};   // the step's logical inputs (value indices)
  std::vector<int> outputs = {};  // the step's logical outputs (value indices)
  std::vector<KernelArg> args = {};
  std::vector<TensorDesc> results = {};  // the kernel's outputs
  ResultMode result_mode = ResultMode::kDirect;
  // kUnpackChannels: per result, the 5-d view of it that is unpacked (same element count).
  std::vector<TensorDesc> blocked = {};
  HostFn prepare = {};  // needed when an arg has Source::kPrepare
  HostFn finish = {};   // needed with ResultMode::kFinish
};

struct ExecutorValue {
  std::string name;
  TensorDesc type;
  NDArray constant;  // defined for a constant value: its contents
};

struct ExecutorPlan {
  std::vector<ExecutorValue> values;
  std::vector<int> inputs;   // graph inputs, in the order Run takes them
  std::vector<int> outputs;  // graph outputs, in the order Run gives them
  std::vector<NDArray> parameters;
  std::vector<ExecutorStep> steps;  // in an order that defines every value before it is read
  // The memory plan: per value, the storage that holds it (-1: a buffer of its own), and per
  // storage its size in bytes (at least every value it holds). Empty: every value its own.
  std::vector<int> storage_of;
  std::vector<int64_t> storage_bytes;
  // Where the kernels run (the device of the target they were built for; see the header).
  DLDevice device{kDLCPU, 0};
};

// What KernelArg::Source::kPackChannels does: NCHW `src` [n, c, h, w] (compact) into `dst`
// [n, cp / b, h, w, b] (compact, preallocated), channels c..cp-1 zero. Runs on
// ThreadPool::Global(). Unimplemented for elements of other than 1, 2, 4 or 8 bytes.
absl::Status PackChannelsInto(const NDArray& src, NDArray& dst);
// What ResultMode::kUnpackChannels does: `src` [n, C / b, H, W, b] (compact) into `dst`
// [n, c, h, w] (compact, preallocated; c <= C, h <= H, w <= W). Same threads and element sizes.
absl::Status UnpackChannelsInto(const NDArray& src, NDArray& dst);

struct ExecutorOptions {
  // > 0: ThreadPool::Global() is resized to this many threads when the executor is created;
  // 0 leaves it as it is.
  int threads = 0;
};

class GraphExecutor {
 public:
  // Checks the plan (internal errors name the step and argument) and allocates its buffers.
  static absl::StatusOr<GraphExecutor> Create(ExecutorPlan plan,
                                              const ExecutorOptions& options = {});

  GraphExecutor(GraphExecutor&&) noexcept;
  GraphExecutor& operator=(GraphExecutor&&) noexcept;
  ~GraphExecutor();

  // Bytes of the buffers allocated at creation (values, scratch, kFinish kernel outputs).
  int64_t AllocatedBytes() const;

  // The graph inputs' names and types, in Run's order.
  std::vector<std::string> InputNames() const;
  std::vector<TensorDesc> InputTypes() const;
  std::vector<std::string> OutputNames() const;
  // The position of the input called name, or NotFound listing the inputs.
  absl::StatusOr<int> FindInput(const std::string& name) const;

  // Runs the graph on one array per graph input (any strides; copied into the executor's
  // buffers) and returns fresh copies of the outputs. Errors: the wrong number of inputs, an
  // input of the wrong type (naming it), a kernel or host transform that fails (naming the node).
  // With `step_seconds`, also the wall time of each step of this run (its packing, kernel and
  // unpacking or finish), in plan order: for profiles; the clock reads cost well under a
  // microsecond per step.
  absl::StatusOr<std::vector<NDArray>> Run(const std::vector<NDArray>& inputs,
                                           std::vector<double>* step_seconds = nullptr);
  // The steps' names, in plan order.
  std::vector<std::string> StepNames() const;

 private:
  struct State;
  explicit GraphExecutor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace tessel::runtime
