#include "compiler/runtime/graph_executor.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cstring>
#include <utility>

#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/thread_pool.h"

namespace tessel::runtime {
namespace {

int64_t Product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

TensorDesc DescOf(const NDArray& a) { return {a.shape(), a.dtype()}; }

// A compact tensor under its own shape over another buffer's storage (a reshape without a copy);
// the data pointer is set before each call.
struct View {
  std::vector<int64_t> shape;
  DLTensor tensor{};

  explicit View(const TensorDesc& type) : shape(type.shape) {
    tensor.device = {kDLCPU, 0};
    tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.dtype = type.dtype;
    tensor.shape = shape.data();
  }
  DLTensor* Over(NDArray& a) {
    tensor.data = a.data<char>();
    return &tensor;
  }
};

// The executor's own buffers for one step.
struct StepBuffers {
  std::vector<NDArray> packed;                   // per arg: the kPackChannels buffer
  std::vector<std::unique_ptr<View>> arg_views;  // per arg: the kReshape view
  std::vector<NDArray> results;                  // with use_finish: the kernel's outputs
  std::vector<std::unique_ptr<View>> out_views;  // without: output k under results[k]'s shape
};

absl::Status PlanError(const ExecutorStep& step, const std::string& what) {
  return absl::InternalError(absl::StrCat("executor plan, node '", step.name, "': ", what));
}

absl::Status CheckArg(const ExecutorPlan& plan, const ExecutorStep& step, size_t a) {
  const KernelArg& arg = step.args[a];
  const std::string where = absl::StrCat("kernel input ", a, " (", SourceName(arg.source), ")");
  const bool reads_input = arg.source == KernelArg::Source::kInput ||
                           arg.source == KernelArg::Source::kReshape ||
                           arg.source == KernelArg::Source::kPackChannels;
  if (reads_input && (arg.index < 0 || static_cast<size_t>(arg.index) >= step.inputs.size())) {
    return PlanError(step, absl::StrCat(where, " reads node input ", arg.index));
  }
  const TensorDesc* in =
      reads_input ? &plan.values[static_cast<size_t>(step.inputs[arg.index])].type : nullptr;
  switch (arg.source) {
    case KernelArg::Source::kInput:
      if (!(*in == arg.type)) {
        return PlanError(
            step, absl::StrCat(where, " is ", arg.type.ToString(), ", the value ", in->ToString()));
      }
      break;
    case KernelArg::Source::kReshape:
      if (Product(in->shape) != Product(arg.type.shape) || !SameDLType(in->dtype, arg.type.dtype)) {
        return PlanError(
            step, absl::StrCat(where, " views ", in->ToString(), " as ", arg.type.ToString()));
      }
      break;
    case KernelArg::Source::kPackChannels: {
      const auto& s = in->shape;
      const auto& p = arg.type.shape;
      if (s.size() != 4 || p.size() != 5 || s[0] != p[0] || s[2] != p[2] || s[3] != p[3] ||
          p[1] * p[4] < s[1] || !SameDLType(in->dtype, arg.type.dtype)) {
        return PlanError(
            step, absl::StrCat(where, " packs ", in->ToString(), " into ", arg.type.ToString()));
      }
      break;
    }
    case KernelArg::Source::kParameter: {
      if (arg.index < 0 || static_cast<size_t>(arg.index) >= plan.parameters.size()) {
        return PlanError(
            step, absl::StrCat(where, " is parameter ", arg.index, " of ", plan.parameters.size()));
      }
      const NDArray& p = plan.parameters[static_cast<size_t>(arg.index)];
      if (!p.defined() || !(DescOf(p) == arg.type) || !p.IsContiguous()) {
        return PlanError(step,
                         absl::StrCat(where, " takes ", arg.type.ToString(), ", the parameter is ",
                                      p.defined() ? DescOf(p).ToString() : "null"));
      }
      break;
    }
    case KernelArg::Source::kPrepare:
      if (!step.prepare) return PlanError(step, absl::StrCat(where, ": no prepare"));
      break;
  }
  return absl::OkStatus();
}

absl::Status CheckPlan(const ExecutorPlan& plan) {
  const size_t n = plan.values.size();
  std::vector<bool> defined(n, false);
  auto valid = [&](int v) { return v >= 0 && static_cast<size_t>(v) < n; };
  for (size_t v = 0; v < n; ++v) defined[v] = plan.values[v].constant.defined();
  for (int v : plan.inputs) {
    if (!valid(v)) return absl::InternalError(absl::StrCat("executor plan: input value ", v));
    defined[static_cast<size_t>(v)] = true;
  }
  for (const ExecutorStep& step : plan.steps) {
    if (!step.kernel.defined()) return PlanError(step, "no kernel");
    for (int v : step.inputs) {
      if (!valid(v) || !defined[static_cast<size_t>(v)]) {
        return PlanError(step, absl::StrCat("reads value ", v, " before it is defined"));
      }
    }
    for (size_t a = 0; a < step.args.size(); ++a) {
      if (absl::Status s = CheckArg(plan, step, a); !s.ok()) return s;
    }
    if (step.use_finish) {
      if (!step.finish) return PlanError(step, "use_finish without a finish");
    } else if (step.results.size() != step.outputs.size()) {
      return PlanError(step, absl::StrCat(step.results.size(), " kernel outputs for ",
                                          step.outputs.size(), " node outputs without a finish"));
    }
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      const int v = step.outputs[k];
      if (!valid(v) || defined[static_cast<size_t>(v)]) {
        return PlanError(step, absl::StrCat("output ", k, " (value ", v, ") is defined twice"));
      }
      defined[static_cast<size_t>(v)] = true;
      if (step.use_finish) continue;
      const TensorDesc& want = plan.values[static_cast<size_t>(v)].type;
      if (Product(want.shape) != Product(step.results[k].shape) ||
          !SameDLType(want.dtype, step.results[k].dtype)) {
        return PlanError(step, absl::StrCat("kernel output ", k, " is ", step.results[k].ToString(),
                                            ", the value ", want.ToString()));
      }
    }
  }
  for (int v : plan.outputs) {
    if (!valid(v) || !defined[static_cast<size_t>(v)]) {
      return absl::InternalError(absl::StrCat("executor plan: output value ", v, " is never set"));
    }
  }
  return absl::OkStatus();
}

NDArray Zeros(const TensorDesc& type) {
  NDArray a = NDArray::Empty(type.shape, type.dtype);
  std::memset(a.data<char>(), 0, static_cast<size_t>(a.NumBytes()));
  return a;
}

template <typename T>
void PackTyped(const T* src, T* dst, int64_t n, int64_t c, int64_t hw, int64_t blocks, int64_t b) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const T* s = src + (i * c + ch) * hw;
      T* d = dst + (i * blocks + ch / b) * hw * b + ch % b;
      for (int64_t p = 0; p < hw; ++p) d[p * b] = s[p];
    }
  }
}

}  // namespace

bool TensorDesc::operator==(const TensorDesc& other) const {
  return shape == other.shape && SameDLType(dtype, other.dtype);
}

std::string TensorDesc::ToString() const {
  return absl::StrCat(DLTypeToString(dtype), "[", absl::StrJoin(shape, ", "), "]");
}

absl::Status PackChannelsInto(const NDArray& src, NDArray& dst) {
  const auto& s = src.shape();
  const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
  const int64_t blocks = dst.shape()[1], b = dst.shape()[4];
  switch (DLTypeBytes(src.dtype())) {
    case 1:
      PackTyped(src.data<uint8_t>(), dst.data<uint8_t>(), n, c, hw, blocks, b);
      return absl::OkStatus();
    case 2:
      PackTyped(src.data<uint16_t>(), dst.data<uint16_t>(), n, c, hw, blocks, b);
      return absl::OkStatus();
    case 4:
      PackTyped(src.data<uint32_t>(), dst.data<uint32_t>(), n, c, hw, blocks, b);
      return absl::OkStatus();
    case 8:
      PackTyped(src.data<uint64_t>(), dst.data<uint64_t>(), n, c, hw, blocks, b);
      return absl::OkStatus();
    default:
      return absl::UnimplementedError(
          absl::StrCat("cannot pack elements of type ", DLTypeToString(src.dtype())));
  }
}

const char* SourceName(KernelArg::Source s) {
  switch (s) {
    case KernelArg::Source::kInput:
      return "input";
    case KernelArg::Source::kReshape:
      return "reshape";
    case KernelArg::Source::kPackChannels:
      return "pack_channels";
    case KernelArg::Source::kParameter:
      return "parameter";
    case KernelArg::Source::kPrepare:
      return "prepare";
  }
  return "?";
}

struct GraphExecutor::State {
  ExecutorPlan plan;
  std::vector<NDArray> slots;  // per value: its contents during a run
  std::vector<StepBuffers> buffers;
  std::vector<Arg> call;  // a kernel call's arguments (reused)
};

namespace {

// Every buffer the executor owns, allocated here and nowhere else: the slots of graph inputs and
// of values kernels write directly, packing buffers, and kernel outputs that go through finish.
void Allocate(const ExecutorPlan& plan, std::vector<NDArray>& slots,
              std::vector<StepBuffers>& buffers) {
  slots.assign(plan.values.size(), NDArray());
  for (size_t v = 0; v < plan.values.size(); ++v) slots[v] = plan.values[v].constant;
  for (int v : plan.inputs) {
    const TensorDesc& t = plan.values[static_cast<size_t>(v)].type;
    slots[static_cast<size_t>(v)] = NDArray::Empty(t.shape, t.dtype);
  }
  buffers.resize(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const ExecutorStep& step = plan.steps[i];
    StepBuffers& b = buffers[i];
    b.packed.resize(step.args.size());
    b.arg_views.resize(step.args.size());
    for (size_t a = 0; a < step.args.size(); ++a) {
      const KernelArg& arg = step.args[a];
      if (arg.source == KernelArg::Source::kPackChannels) b.packed[a] = Zeros(arg.type);
      if (arg.source == KernelArg::Source::kReshape) {
        b.arg_views[a] = std::make_unique<View>(arg.type);
      }
    }
    if (step.use_finish) {
      for (const TensorDesc& r : step.results) {
        b.results.push_back(NDArray::Empty(r.shape, r.dtype));
      }
      continue;
    }
    b.out_views.resize(step.outputs.size());
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      const TensorDesc& t = plan.values[static_cast<size_t>(step.outputs[k])].type;
      slots[static_cast<size_t>(step.outputs[k])] = NDArray::Empty(t.shape, t.dtype);
      if (!(t == step.results[k])) b.out_views[k] = std::make_unique<View>(step.results[k]);
    }
  }
}

absl::Status StepError(const ExecutorStep& step, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("node '", step.name, "': ", s.message()));
}

// A value read through a view must be compact (values from `finish` are fresh arrays).
absl::Status NeedCompact(const ExecutorStep& step, const NDArray& a) {
  if (a.IsContiguous() && a.dl()->byte_offset == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("node '", step.name, "': a value it views under another shape is not compact"));
}

absl::Status RunStep(const ExecutorPlan& plan, const ExecutorStep& step, StepBuffers& b,
                     std::vector<NDArray>& slots, std::vector<Arg>& call) {
  std::vector<NDArray> prepared;
  for (const KernelArg& arg : step.args) {
    if (arg.source != KernelArg::Source::kPrepare) continue;
    std::vector<NDArray> logical;
    for (int v : step.inputs) logical.push_back(slots[static_cast<size_t>(v)]);
    absl::StatusOr<std::vector<NDArray>> out = step.prepare(logical);
    if (!out.ok()) return StepError(step, out.status());
    prepared = *std::move(out);
    break;
  }
  call.clear();
  for (size_t a = 0; a < step.args.size(); ++a) {
    const KernelArg& arg = step.args[a];
    NDArray* in = nullptr;
    if (arg.source != KernelArg::Source::kParameter && arg.source != KernelArg::Source::kPrepare) {
      in = &slots[static_cast<size_t>(step.inputs[static_cast<size_t>(arg.index)])];
    }
    switch (arg.source) {
      case KernelArg::Source::kInput:
        call.push_back(in->dl());
        break;
      case KernelArg::Source::kReshape:
        if (absl::Status s = NeedCompact(step, *in); !s.ok()) return s;
        call.push_back(b.arg_views[a]->Over(*in));
        break;
      case KernelArg::Source::kPackChannels: {
        if (absl::Status s = NeedCompact(step, *in); !s.ok()) return s;
        if (absl::Status s = PackChannelsInto(*in, b.packed[a]); !s.ok()) return StepError(step, s);
        call.push_back(b.packed[a].dl());
        break;
      }
      case KernelArg::Source::kParameter:
        call.push_back(const_cast<DLTensor*>(plan.parameters[static_cast<size_t>(arg.index)].dl()));
        break;
      case KernelArg::Source::kPrepare: {
        const size_t i = static_cast<size_t>(arg.index);
        if (i >= prepared.size() || !(DescOf(prepared[i]) == arg.type)) {
          return absl::InternalError(absl::StrCat("node '", step.name, "': prepare output ",
                                                  arg.index, " is not ", arg.type.ToString()));
        }
        call.push_back(prepared[i].dl());
        break;
      }
    }
  }
  if (step.use_finish) {
    for (NDArray& r : b.results) call.push_back(r.dl());
  } else {
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      NDArray& out = slots[static_cast<size_t>(step.outputs[k])];
      call.push_back(b.out_views[k] ? b.out_views[k]->Over(out) : out.dl());
    }
  }
  if (absl::Status s = step.kernel(std::span<const Arg>(call)); !s.ok()) return StepError(step, s);
  if (!step.use_finish) return absl::OkStatus();
  absl::StatusOr<std::vector<NDArray>> outs = step.finish(b.results);
  if (!outs.ok()) return StepError(step, outs.status());
  if (outs->size() != step.outputs.size()) {
    return absl::InternalError(absl::StrCat("node '", step.name, "': finish gave ", outs->size(),
                                            " outputs for ", step.outputs.size()));
  }
  for (size_t k = 0; k < outs->size(); ++k) {
    const size_t v = static_cast<size_t>(step.outputs[k]);
    if (!(DescOf((*outs)[k]) == plan.values[v].type)) {
      return absl::InternalError(absl::StrCat("node '", step.name, "': finish output ", k, " is ",
                                              DescOf((*outs)[k]).ToString(), ", the value ",
                                              plan.values[v].type.ToString()));
    }
    slots[v] = (*outs)[k];
  }
  return absl::OkStatus();
}

}  // namespace

GraphExecutor::GraphExecutor(std::unique_ptr<State> state) : state_(std::move(state)) {}
GraphExecutor::GraphExecutor(GraphExecutor&&) noexcept = default;
GraphExecutor& GraphExecutor::operator=(GraphExecutor&&) noexcept = default;
GraphExecutor::~GraphExecutor() = default;

absl::StatusOr<GraphExecutor> GraphExecutor::Create(ExecutorPlan plan,
                                                    const ExecutorOptions& options) {
  if (absl::Status s = CheckPlan(plan); !s.ok()) return s;
  if (options.threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads must be >= 0 (0: as the thread pool is), got ", options.threads));
  }
  if (options.threads > 0) ThreadPool::Global().SetNumThreads(options.threads);
  auto state = std::make_unique<State>();
  state->plan = std::move(plan);
  Allocate(state->plan, state->slots, state->buffers);
  return GraphExecutor(std::move(state));
}

std::vector<std::string> GraphExecutor::InputNames() const {
  std::vector<std::string> names;
  for (int v : state_->plan.inputs)
    names.push_back(state_->plan.values[static_cast<size_t>(v)].name);
  return names;
}

std::vector<TensorDesc> GraphExecutor::InputTypes() const {
  std::vector<TensorDesc> types;
  for (int v : state_->plan.inputs)
    types.push_back(state_->plan.values[static_cast<size_t>(v)].type);
  return types;
}

std::vector<std::string> GraphExecutor::OutputNames() const {
  std::vector<std::string> names;
  for (int v : state_->plan.outputs) {
    names.push_back(state_->plan.values[static_cast<size_t>(v)].name);
  }
  return names;
}

absl::StatusOr<int> GraphExecutor::FindInput(const std::string& name) const {
  const std::vector<std::string> names = InputNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return absl::NotFoundError(absl::StrCat("the model has no input '", name,
                                          "' (its inputs: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<std::vector<NDArray>> GraphExecutor::Run(const std::vector<NDArray>& inputs) {
  State& s = *state_;
  const ExecutorPlan& plan = s.plan;
  if (inputs.size() != plan.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the model takes ", plan.inputs.size(),
                                                   " inputs (", absl::StrJoin(InputNames(), ", "),
                                                   "), got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ExecutorValue& v = plan.values[static_cast<size_t>(plan.inputs[i])];
    if (!inputs[i].defined() || !(DescOf(inputs[i]) == v.type)) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", v.name, "' must be ", v.type.ToString(), ", got ",
                       inputs[i].defined() ? DescOf(inputs[i]).ToString() : "nothing"));
    }
    if (absl::Status st = s.slots[static_cast<size_t>(plan.inputs[i])].CopyFrom(inputs[i]);
        !st.ok()) {
      return st;
    }
  }
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (absl::Status st = RunStep(plan, plan.steps[i], s.buffers[i], s.slots, s.call); !st.ok()) {
      return st;
    }
  }
  std::vector<NDArray> outputs;
  for (int v : plan.outputs) {
    const NDArray& value = s.slots[static_cast<size_t>(v)];
    NDArray copy = NDArray::Empty(value.shape(), value.dtype());
    if (absl::Status st = copy.CopyFrom(value); !st.ok()) return st;
    outputs.push_back(std::move(copy));
  }
  return outputs;
}

}  // namespace tessel::runtime
