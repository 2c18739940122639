#include "compiler/runtime/graph_executor.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include "compiler/runtime/device_api.h"
#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/thread_pool.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

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

  View(const TensorDesc& type, DLDevice device) : shape(type.shape) {
    tensor.device = device;
    tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.dtype = type.dtype;
    tensor.shape = shape.data();
  }
  // `a` is compact with byte_offset 0 (NeedCompact), on the view's device.
  DLTensor* Over(NDArray& a) {
    tensor.data = a.dl()->data;
    return &tensor;
  }
};

// The executor's own buffers for one step.
struct StepBuffers {
  std::vector<NDArray> packed;                   // per arg: the kPackChannels buffer (scratch)
  std::vector<std::unique_ptr<View>> arg_views;  // per arg: the kReshape view
  // kUnpackChannels (scratch) and kFinish (its own): the kernel's outputs.
  std::vector<NDArray> results;
  std::vector<NDArray> blocked;  // kUnpackChannels: results[k] viewed as step.blocked[k]
  std::vector<std::unique_ptr<View>> out_views;  // kDirect: output k under results[k]'s shape
};

// What a view NDArray keeps alive: the array it views and its shape.
struct ViewContext {
  NDArray base;
  std::vector<int64_t> shape;
};

// A compact array of `type` over base's bytes [offset, offset + its size), sharing base's
// storage (kept alive by the view). On a device only offset 0: a device address (an OpenCL
// buffer, say) need not take arithmetic.
NDArray ViewOf(const NDArray& base, int64_t offset, const TensorDesc& type) {
  TESSEL_CHECK(IsHost(base.device()) || offset == 0) << "a device view at offset " << offset;
  auto* ctx = new ViewContext{base, type.shape};
  auto* m = new DLManagedTensor{};
  m->dl_tensor.data = static_cast<char*>(ctx->base.dl()->data) + offset;
  m->dl_tensor.device = base.device();
  m->dl_tensor.ndim = static_cast<int32_t>(ctx->shape.size());
  m->dl_tensor.dtype = type.dtype;
  m->dl_tensor.shape = ctx->shape.data();
  m->dl_tensor.strides = nullptr;
  m->dl_tensor.byte_offset = 0;
  m->manager_ctx = ctx;
  m->deleter = [](DLManagedTensor* self) {
    delete static_cast<ViewContext*>(self->manager_ctx);
    delete self;
  };
  absl::StatusOr<NDArray> view = NDArray::FromDLPack(m);
  if (!view.ok()) {  // unreachable: the tensor above is well formed
    m->deleter(m);
    return NDArray::Empty(type.shape, type.dtype);
  }
  return *std::move(view);
}

int64_t BytesOf(const TensorDesc& t) { return Product(t.shape) * DLTypeBytes(t.dtype); }

absl::Status PlanError(const ExecutorStep& step, const std::string& what) {
  return absl::InternalError(absl::StrCat("executor plan, node '", step.name, "': ", what));
}

absl::Status CheckArg(const ExecutorPlan& plan, const ExecutorStep& step, size_t a) {
  const KernelArg& arg = step.args[a];
  const std::string where = absl::StrCat("kernel input ", a, " (", SourceName(arg.source), ")");
  if (arg.source == KernelArg::Source::kPackChannels && !IsHost(plan.device)) {
    return PlanError(step, absl::StrCat(where, ": channels are packed on the host only"));
  }
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

absl::Status MemoryError(const std::string& what) {
  return absl::InternalError(absl::StrCat("executor plan, memory: ", what));
}

// The memory plan's placement (see the header): sizes, graph inputs and constants unplaced,
// graph outputs alone, and no two values of one storage live at one step.
absl::Status CheckMemoryPlan(const ExecutorPlan& plan) {
  if (plan.storage_of.empty()) return absl::OkStatus();
  const size_t n = plan.values.size();
  if (plan.storage_of.size() != n) {
    return MemoryError(
        absl::StrCat("storage_of has ", plan.storage_of.size(), " entries for ", n, " values"));
  }
  auto name = [&](size_t v) { return absl::StrCat("'", plan.values[v].name, "'"); };
  std::vector<int> users(plan.storage_bytes.size(), 0);
  for (size_t v = 0; v < n; ++v) {
    const int s = plan.storage_of[v];
    if (s < 0) continue;
    if (static_cast<size_t>(s) >= plan.storage_bytes.size()) {
      return MemoryError(
          absl::StrCat(name(v), " is in storage ", s, " of ", plan.storage_bytes.size()));
    }
    if (plan.values[v].constant.defined())
      return MemoryError(absl::StrCat(name(v), " is a constant"));
    if (BytesOf(plan.values[v].type) > plan.storage_bytes[static_cast<size_t>(s)]) {
      return MemoryError(absl::StrCat(name(v), " (", BytesOf(plan.values[v].type),
                                      " bytes) does not fit storage ", s, " (",
                                      plan.storage_bytes[static_cast<size_t>(s)], " bytes)"));
    }
    ++users[static_cast<size_t>(s)];
  }
  for (int v : plan.inputs) {
    if (plan.storage_of[static_cast<size_t>(v)] >= 0) {
      return MemoryError(
          absl::StrCat("graph input ", name(static_cast<size_t>(v)), " is placed in a storage"));
    }
  }
  // Live ranges in steps: [the step that writes, the last step that reads]; graph outputs live
  // to the end.
  const int end = static_cast<int>(plan.steps.size());
  std::vector<int> first(n, -1), last(n, -1);
  for (int i = 0; i < end; ++i) {
    const ExecutorStep& step = plan.steps[static_cast<size_t>(i)];
    for (int v : step.inputs) last[static_cast<size_t>(v)] = i;
    for (int v : step.outputs) first[static_cast<size_t>(v)] = last[static_cast<size_t>(v)] = i;
  }
  for (int v : plan.outputs) {
    const int s = plan.storage_of[static_cast<size_t>(v)];
    if (s >= 0 && users[static_cast<size_t>(s)] > 1) {
      return MemoryError(absl::StrCat("graph output ", name(static_cast<size_t>(v)),
                                      " shares storage ", s, " with another value"));
    }
    last[static_cast<size_t>(v)] = end;
  }
  std::vector<std::vector<std::pair<int, int>>> ranges(plan.storage_bytes.size());  // (first, v)
  for (size_t v = 0; v < n; ++v) {
    const int s = plan.storage_of[v];
    if (s >= 0 && first[v] >= 0)
      ranges[static_cast<size_t>(s)].push_back({first[v], static_cast<int>(v)});
  }
  for (size_t s = 0; s < ranges.size(); ++s) {
    std::vector<std::pair<int, int>>& r = ranges[s];
    std::sort(r.begin(), r.end());
    size_t prev = 0;  // of the values before j, the one live the longest
    for (size_t j = 0; j < r.size(); ++j) {
      const size_t v = static_cast<size_t>(r[j].second);
      if (j > 0 && r[j].first <= last[prev]) {
        return MemoryError(absl::StrCat(name(v), " (written at step ", r[j].first, ") and ",
                                        name(prev), " (live through step ", last[prev],
                                        ") share storage ", s));
      }
      if (j == 0 || last[v] > last[prev]) prev = v;
    }
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
    const bool finish = step.result_mode == ResultMode::kFinish;
    if (finish) {
      if (!step.finish) return PlanError(step, "kFinish without a finish");
    } else if (step.results.size() != step.outputs.size()) {
      return PlanError(step, absl::StrCat(step.results.size(), " kernel outputs for ",
                                          step.outputs.size(), " step outputs without a finish"));
    }
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      const int v = step.outputs[k];
      if (!valid(v) || defined[static_cast<size_t>(v)]) {
        return PlanError(step, absl::StrCat("output ", k, " (value ", v, ") is defined twice"));
      }
      defined[static_cast<size_t>(v)] = true;
      if (finish) continue;
      const TensorDesc& want = plan.values[static_cast<size_t>(v)].type;
      const TensorDesc& got = step.results[k];
      bool fits = SameDLType(want.dtype, got.dtype);
      if (step.result_mode == ResultMode::kDirect) {
        fits = fits && Product(want.shape) == Product(got.shape);
      } else {
        if (step.blocked.size() != step.results.size()) {
          return PlanError(step, absl::StrCat(step.blocked.size(), " blocked views of ",
                                              step.results.size(), " kernel outputs"));
        }
        const auto& s = want.shape;
        const auto& p = step.blocked[k].shape;
        fits = fits && SameDLType(step.blocked[k].dtype, got.dtype) &&
               Product(p) == Product(got.shape) && s.size() == 4 && p.size() == 5 && s[0] == p[0] &&
               s[1] <= p[1] * p[4] && s[2] <= p[2] && s[3] <= p[3];
      }
      if (step.result_mode == ResultMode::kUnpackChannels && !IsHost(plan.device)) {
        return PlanError(step, "channels are unpacked on the host only");
      }
      if (!fits) {
        return PlanError(
            step, absl::StrCat("kernel output ", k, " (", ResultModeName(step.result_mode), ") is ",
                               got.ToString(), ", the value ", want.ToString()));
      }
    }
  }
  for (int v : plan.outputs) {
    if (!valid(v) || !defined[static_cast<size_t>(v)]) {
      return absl::InternalError(absl::StrCat("executor plan: output value ", v, " is never set"));
    }
  }
  return CheckMemoryPlan(plan);
}

// Runs body(begin, end) over [0, rows) on ThreadPool::Global() when the work is large enough
// to pay for a launch, else inline.
absl::Status ForRows(int64_t rows, int64_t elements,
                     const std::function<void(int64_t, int64_t)>& body) {
  constexpr int64_t kParallelElements = 1 << 15;
  if (elements < kParallelElements || ThreadPool::Global().num_threads() == 1) {
    body(0, rows);
    return absl::OkStatus();
  }
  return ThreadPool::Global().ParallelFor(0, rows, body);
}

// Row r = (i, ch) of n x cp: channel ch of image i, zeros for ch >= c.
template <typename T>
absl::Status PackTyped(const T* src, T* dst, int64_t n, int64_t c, int64_t hw, int64_t blocks,
                       int64_t b) {
  const int64_t cp = blocks * b;
  return ForRows(n * cp, n * cp * hw, [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r / cp, ch = r % cp;
      T* d = dst + (i * blocks + ch / b) * hw * b + ch % b;
      if (ch >= c) {
        for (int64_t p = 0; p < hw; ++p) d[p * b] = T{};
        continue;
      }
      const T* s = src + (i * c + ch) * hw;
      for (int64_t p = 0; p < hw; ++p) d[p * b] = s[p];
    }
  });
}

// src [n, blocks, H, W, b] -> dst [n, c, h, w], cropped; row r = (i, ch) of n x c.
template <typename T>
absl::Status UnpackTyped(const T* src, T* dst, int64_t n, int64_t c, int64_t h, int64_t w,
                         int64_t blocks, int64_t src_h, int64_t src_w, int64_t b) {
  return ForRows(n * c, n * c * h * w, [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r / c, ch = r % c;
      const T* s = src + (i * blocks + ch / b) * src_h * src_w * b + ch % b;
      T* d = dst + r * h * w;
      for (int64_t y = 0; y < h; ++y) {
        const T* sy = s + y * src_w * b;
        T* dy = d + y * w;
        for (int64_t x = 0; x < w; ++x) dy[x] = sy[x * b];
      }
    }
  });
}

absl::Status UnsupportedElement(const NDArray& a) {
  return absl::UnimplementedError(
      absl::StrCat("cannot pack elements of type ", DLTypeToString(a.dtype())));
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
      return PackTyped(src.data<uint8_t>(), dst.data<uint8_t>(), n, c, hw, blocks, b);
    case 2:
      return PackTyped(src.data<uint16_t>(), dst.data<uint16_t>(), n, c, hw, blocks, b);
    case 4:
      return PackTyped(src.data<uint32_t>(), dst.data<uint32_t>(), n, c, hw, blocks, b);
    case 8:
      return PackTyped(src.data<uint64_t>(), dst.data<uint64_t>(), n, c, hw, blocks, b);
    default:
      return UnsupportedElement(src);
  }
}

absl::Status UnpackChannelsInto(const NDArray& src, NDArray& dst) {
  const auto& s = src.shape();
  const auto& d = dst.shape();
  const int64_t n = d[0], c = d[1], h = d[2], w = d[3];
  const int64_t blocks = s[1], sh = s[2], sw = s[3], b = s[4];
  switch (DLTypeBytes(src.dtype())) {
    case 1:
      return UnpackTyped(src.data<uint8_t>(), dst.data<uint8_t>(), n, c, h, w, blocks, sh, sw, b);
    case 2:
      return UnpackTyped(src.data<uint16_t>(), dst.data<uint16_t>(), n, c, h, w, blocks, sh, sw, b);
    case 4:
      return UnpackTyped(src.data<uint32_t>(), dst.data<uint32_t>(), n, c, h, w, blocks, sh, sw, b);
    case 8:
      return UnpackTyped(src.data<uint64_t>(), dst.data<uint64_t>(), n, c, h, w, blocks, sh, sw, b);
    default:
      return UnsupportedElement(src);
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

const char* ResultModeName(ResultMode m) {
  switch (m) {
    case ResultMode::kDirect:
      return "direct";
    case ResultMode::kUnpackChannels:
      return "unpack_channels";
    case ResultMode::kFinish:
      return "finish";
  }
  return "?";
}

struct GraphExecutor::State {
  ExecutorPlan plan;
  std::vector<NDArray> slots;  // per value: its contents during a run
  std::vector<StepBuffers> buffers;
  std::vector<Arg> call;  // a kernel call's arguments (reused)
  int64_t allocated_bytes = 0;
};

namespace {

int64_t AlignUp(int64_t bytes) {
  const auto a = static_cast<int64_t>(kAllocAlignment);
  return (bytes + a - 1) / a * a;
}

// Every buffer the executor owns, allocated here and nowhere else (see the header): graph
// inputs, the memory plan's storages (values as views), one scratch buffer shared by the steps'
// packing buffers and blocked results, and kFinish kernel outputs. Returns the bytes allocated.
// On a device, every buffer is the device's and the constants are copied there.
absl::StatusOr<int64_t> Allocate(const ExecutorPlan& plan, std::vector<NDArray>& slots,
                                 std::vector<StepBuffers>& buffers) {
  int64_t total = 0;
  absl::Status failed;
  auto fresh = [&](const TensorDesc& t) {
    total += BytesOf(t);
    if (IsHost(plan.device)) return NDArray::Empty(t.shape, t.dtype);
    absl::StatusOr<NDArray> on_device = NDArray::Empty(t.shape, t.dtype, plan.device);
    if (on_device.ok()) return *std::move(on_device);
    if (failed.ok()) failed = on_device.status();
    return NDArray::Empty(t.shape, t.dtype);  // unused: the error is returned
  };
  slots.assign(plan.values.size(), NDArray());
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const NDArray& constant = plan.values[v].constant;
    if (!constant.defined() || IsHost(plan.device)) {
      slots[v] = constant;
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(slots[v], constant.CopyTo(plan.device));
  }
  for (int v : plan.inputs)
    slots[static_cast<size_t>(v)] = fresh(plan.values[static_cast<size_t>(v)].type);
  std::vector<NDArray> storages;
  for (int64_t bytes : plan.storage_bytes) {
    storages.push_back(fresh({{bytes}, {kDLUInt, 8, 1}}));
  }

  // Scratch: per step, its buffers at offsets from 0; the buffer is the largest step's.
  std::vector<std::vector<std::pair<size_t, int64_t>>> packed_at(
      plan.steps.size());  // (arg, offset)
  std::vector<std::vector<int64_t>> results_at(plan.steps.size());
  int64_t scratch_bytes = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const ExecutorStep& step = plan.steps[i];
    int64_t offset = 0;
    for (size_t a = 0; a < step.args.size(); ++a) {
      if (step.args[a].source != KernelArg::Source::kPackChannels) continue;
      packed_at[i].push_back({a, offset});
      offset += AlignUp(BytesOf(step.args[a].type));
    }
    if (step.result_mode == ResultMode::kUnpackChannels) {
      for (const TensorDesc& r : step.results) {
        results_at[i].push_back(offset);
        offset += AlignUp(BytesOf(r));
      }
    }
    scratch_bytes = std::max(scratch_bytes, offset);
  }
  const NDArray scratch = fresh({{scratch_bytes}, {kDLUInt, 8, 1}});

  buffers.resize(plan.steps.size());
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const ExecutorStep& step = plan.steps[i];
    StepBuffers& b = buffers[i];
    b.packed.resize(step.args.size());
    b.arg_views.resize(step.args.size());
    for (const auto& [a, offset] : packed_at[i])
      b.packed[a] = ViewOf(scratch, offset, step.args[a].type);
    for (size_t a = 0; a < step.args.size(); ++a) {
      if (step.args[a].source == KernelArg::Source::kReshape) {
        b.arg_views[a] = std::make_unique<View>(step.args[a].type, plan.device);
      }
    }
    if (step.result_mode == ResultMode::kFinish) {
      for (const TensorDesc& r : step.results) b.results.push_back(fresh(r));
      continue;
    }
    for (size_t k = 0; k < results_at[i].size(); ++k) {
      b.results.push_back(ViewOf(scratch, results_at[i][k], step.results[k]));
      b.blocked.push_back(ViewOf(scratch, results_at[i][k], step.blocked[k]));
    }
    b.out_views.resize(step.outputs.size());
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      const size_t v = static_cast<size_t>(step.outputs[k]);
      const TensorDesc& t = plan.values[v].type;
      const int storage = plan.storage_of.empty() ? -1 : plan.storage_of[v];
      slots[v] = storage >= 0 ? ViewOf(storages[static_cast<size_t>(storage)], 0, t) : fresh(t);
      if (step.result_mode == ResultMode::kDirect && !(t == step.results[k])) {
        b.out_views[k] = std::make_unique<View>(step.results[k], plan.device);
      }
    }
  }
  TESSEL_RETURN_IF_ERROR(failed);
  return total;
}

// Host transforms run on the host: arrays on the device are copied there first (and back after).
absl::StatusOr<std::vector<NDArray>> OnDevice(const std::vector<NDArray>& arrays,
                                              DLDevice device) {
  std::vector<NDArray> out;
  for (const NDArray& a : arrays) {
    if (a.device().device_type == device.device_type && a.device().device_id == device.device_id) {
      out.push_back(a);
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(NDArray copy, a.CopyTo(device));
    out.push_back(std::move(copy));
  }
  return out;
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
    absl::StatusOr<std::vector<NDArray>> host = OnDevice(logical, {kDLCPU, 0});
    absl::StatusOr<std::vector<NDArray>> out =
        host.ok() ? step.prepare(*host) : host.status();
    if (out.ok()) out = OnDevice(*out, plan.device);
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
  if (step.result_mode == ResultMode::kDirect) {
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      NDArray& out = slots[static_cast<size_t>(step.outputs[k])];
      call.push_back(b.out_views[k] ? b.out_views[k]->Over(out) : out.dl());
    }
  } else {
    for (NDArray& r : b.results) call.push_back(r.dl());
  }
  if (absl::Status s = step.kernel(std::span<const Arg>(call)); !s.ok()) return StepError(step, s);
  if (step.result_mode == ResultMode::kDirect) return absl::OkStatus();
  if (step.result_mode == ResultMode::kUnpackChannels) {
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      NDArray& out = slots[static_cast<size_t>(step.outputs[k])];
      if (absl::Status s = UnpackChannelsInto(b.blocked[k], out); !s.ok()) {
        return StepError(step, s);
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<NDArray>> outs = OnDevice(b.results, {kDLCPU, 0});
  if (outs.ok()) outs = step.finish(*outs);
  if (outs.ok()) outs = OnDevice(*outs, plan.device);
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
  if (!IsHost(plan.device)) {
    TESSEL_ASSIGN_OR_RETURN(plan.parameters, OnDevice(plan.parameters, plan.device));
  }
  auto state = std::make_unique<State>();
  state->plan = std::move(plan);
  TESSEL_ASSIGN_OR_RETURN(state->allocated_bytes,
                          Allocate(state->plan, state->slots, state->buffers));
  return GraphExecutor(std::move(state));
}

int64_t GraphExecutor::AllocatedBytes() const { return state_->allocated_bytes; }

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

std::vector<std::string> GraphExecutor::StepNames() const {
  std::vector<std::string> names;
  for (const ExecutorStep& step : state_->plan.steps) names.push_back(step.name);
  return names;
}

absl::StatusOr<std::vector<NDArray>> GraphExecutor::Run(const std::vector<NDArray>& inputs,
                                                        std::vector<double>* step_seconds) {
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
  if (step_seconds != nullptr) step_seconds->assign(plan.steps.size(), 0.0);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status st = RunStep(plan, plan.steps[i], s.buffers[i], s.slots, s.call); !st.ok()) {
      return st;
    }
    if (step_seconds != nullptr) {
      (*step_seconds)[i] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
