#include "compiler/codegen/interp/params.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/codegen/interp/lanewise.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/runtime/dltype.h"

namespace tessel::interp::detail {
namespace {

// Whether a tensor of type t can be a buffer of type want. bool buffers take one byte per
// element: uint8 tensors, or DLPack's bool.
bool Matches(DLDataType t, ir::DataType want) {
  if (t.lanes != want.lanes()) return false;
  switch (want.code()) {
    case ir::TypeCode::kInt:
      return t.code == kDLInt && t.bits == want.bits();
    case ir::TypeCode::kUInt:
      return t.code == kDLUInt && t.bits == want.bits();
    case ir::TypeCode::kFloat:
      return t.code == kDLFloat && t.bits == want.bits();
    case ir::TypeCode::kBool:
      return (t.code == kDLUInt || t.code == runtime::kDLBool) && t.bits == 8;
    case ir::TypeCode::kHandle:
      break;
  }
  return false;
}

int64_t EntryValue(const TensorEntry& e, const DLTensor& t, const std::vector<int64_t>& strides) {
  switch (e.field) {
    case TensorEntry::Field::kShape:
      return t.shape[e.dim];
    case TensorEntry::Field::kStride:
      return strides[e.dim];
    case TensorEntry::Field::kElemOffset:
      break;
  }
  return 0;
}

}  // namespace

std::string TensorEntry::Name() const {
  switch (field) {
    case Field::kShape:
      return absl::StrCat("shape[", dim, "]");
    case Field::kStride:
      return absl::StrCat("strides[", dim, "]");
    case Field::kElemOffset:
      break;
  }
  return "elem_offset";
}

ParamPlans PlanParams(Compiler& c, const ir::PrimFunc& func) {
  ParamPlans plans;
  absl::flat_hash_set<const ir::VarNode*> seen;
  // Scalars first, so that buffer shapes may use them.
  for (const ir::Var& p : func->params) {
    ParamPlan& plan = plans.params.emplace_back();
    plan.name = p.name();
    plan.buffer = func.BufferOf(p);
    if (!seen.insert(p.get()).second)
      c.Fail(absl::StrCat("parameter '", p.name(), "' is listed twice"));
    if (plan.buffer.defined()) continue;
    const std::optional<ScalarKind> kind = KindOf(p.dtype());
    if (!kind || p.dtype().is_vector()) {
      c.Fail(absl::StrCat("parameter '", p.name(), "' of type ", p.dtype().ToString(),
                          " is neither a scalar nor the data of a buffer in the function's "
                          "buffers"));
      continue;
    }
    plan.kind = *kind;
    plan.slot = c.DefineVar(p.get());
  }
  struct Pending {
    int param;
    TensorEntry entry;
    ir::Expr expr;
  };
  std::vector<Pending> pending;
  for (size_t i = 0; i < plans.params.size(); ++i) {
    ParamPlan& plan = plans.params[i];
    const ir::Buffer& buffer = plan.buffer;
    if (!buffer.defined()) continue;
    if (!KindOf(buffer->dtype)) {
      c.Fail(absl::StrCat("buffer parameter '", buffer.name(), "' of type ",
                          buffer->dtype.ToString(), " cannot hold values"));
    }
    plan.binding = c.DefineStorage(buffer->data, StorageInfo::Origin::kArgument, buffer);
    // A variable the tensor defines is bound; anything else is checked.
    auto add = [&](TensorEntry entry, const ir::Expr& e) {
      const auto* var = e.as<ir::VarNode>();
      if (var != nullptr && c.SlotOf(var) < 0) {
        const Compiler::WrapFn wrap = c.WrapOf(var->dtype);
        if (wrap == nullptr) {
          c.Fail(absl::StrCat("variable '", var->name, "' in buffer '", buffer.name(),
                              "' must be a scalar integer"));
          return;
        }
        plan.bindings.push_back({entry, c.DefineVar(var), wrap, var->name});
      } else {
        pending.push_back({static_cast<int>(i), entry, e});
      }
    };
    for (int k = 0; k < buffer.ndim(); ++k) add({TensorEntry::Field::kShape, k}, buffer->shape[k]);
    if (!buffer->strides.empty() && static_cast<int>(buffer->strides.size()) != buffer.ndim()) {
      c.Fail(absl::StrCat("buffer parameter '", buffer.name(), "' has ", buffer->strides.size(),
                          " strides for ", buffer.ndim(), " dimensions"));
    }
    for (size_t k = 0; k < buffer->strides.size(); ++k) {
      add({TensorEntry::Field::kStride, static_cast<int>(k)}, buffer->strides[k]);
    }
    if (buffer->elem_offset.defined()) {
      const int64_t* offset = ir::AsConstInt(buffer->elem_offset);
      if (offset != nullptr && *offset != 0) {
        c.Fail(absl::StrCat("buffer parameter '", buffer.name(), "' has elem_offset ", *offset,
                            "; the interpreter places element 0 at the tensor's data + "
                            "byte_offset, so it must be 0"));
      } else if (offset == nullptr) {
        add({TensorEntry::Field::kElemOffset, 0}, buffer->elem_offset);
      }
    }
  }
  for (Pending& p : pending) {
    plans.checks.push_back({p.param, p.entry, c.CompileIndex(p.expr, "a buffer parameter's shape"),
                            ir::ToString(p.expr)});
  }
  return plans;
}

absl::Status BindParams(const ParamPlans& plans, const std::vector<Arg>& args, Frame& f) {
  const std::vector<ParamPlan>& params = plans.params;
  if (args.size() != params.size()) {
    std::vector<std::string> names;
    for (const ParamPlan& p : params) names.push_back(p.name);
    return absl::InvalidArgumentError(absl::StrCat("expects ", params.size(), " arguments (",
                                                   absl::StrJoin(names, ", "), "), got ",
                                                   args.size()));
  }
  auto error = [&](size_t i, const std::string& problem) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument ", i, " (parameter '", params[i].name, "'): ", problem));
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamPlan& p = params[i];
    if (p.buffer.defined()) continue;
    const bool is_float = p.kind == ScalarKind::kFloat16 || p.kind == ScalarKind::kFloat32 ||
                          p.kind == ScalarKind::kFloat64;
    if (is_float) {
      const double* d = std::get_if<double>(&args[i]);
      if (d == nullptr) return error(i, absl::StrCat("expects a double for ", KindName(p.kind)));
      f.slots[p.slot] = ConvertLane(ScalarKind::kFloat64, p.kind, FloatLane(*d));
    } else {
      const int64_t* v = std::get_if<int64_t>(&args[i]);
      if (v == nullptr) return error(i, absl::StrCat("expects an int64_t for ", KindName(p.kind)));
      const Lane value = ConvertLane(ScalarKind::kInt64, p.kind, IntLane(*v));
      if (value.i != *v) return error(i, absl::StrCat(*v, " does not fit ", KindName(p.kind)));
      f.slots[p.slot] = value;
    }
  }
  std::vector<const DLTensor*> tensors(params.size(), nullptr);
  std::vector<std::vector<int64_t>> strides(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamPlan& p = params[i];
    if (!p.buffer.defined()) continue;
    DLTensor* const* tp = std::get_if<DLTensor*>(&args[i]);
    if (tp == nullptr || *tp == nullptr) return error(i, "expects a tensor (a non-null DLTensor*)");
    const DLTensor& t = **tp;
    tensors[i] = &t;
    const ir::DataType dtype = p.buffer->dtype;
    if (t.device.device_type != kDLCPU) {
      return error(i, absl::StrCat("the tensor is on device type ", t.device.device_type,
                                   "; the interpreter needs host memory (kDLCPU)"));
    }
    std::vector<std::string> shape_text;
    for (const ir::Expr& e : p.buffer->shape) shape_text.push_back(ir::ToString(e));
    const std::string expected = absl::StrCat(dtype.ToString(), " tensor of rank ", p.buffer.ndim(),
                                              " (shape [", absl::StrJoin(shape_text, ", "), "])");
    if (t.ndim != p.buffer.ndim()) {
      return error(i, absl::StrCat("expects a ", expected, ", got rank ", t.ndim));
    }
    if (!Matches(t.dtype, dtype)) {
      return error(i, absl::StrCat("expects a ", expected, ", got ",
                                   runtime::DLTypeToString(t.dtype), " elements"));
    }
    if (t.ndim > 0 && t.shape == nullptr) return error(i, "the tensor has no shape");
    // The tensor's strides, compact row-major when it has none.
    std::vector<int64_t>& s = strides[i];
    s.resize(t.ndim);
    int64_t compact = 1;
    bool empty = false;
    for (int k = t.ndim - 1; k >= 0; --k) {
      if (t.shape[k] < 0) return error(i, absl::StrCat("negative shape[", k, "] ", t.shape[k]));
      empty |= t.shape[k] == 0;
      s[k] = t.strides != nullptr ? t.strides[k] : compact;
      if (s[k] < 0)
        return error(
            i, absl::StrCat("negative strides are not supported (strides[", k, "] is ", s[k], ")"));
      if (p.buffer->strides.empty() && t.shape[k] > 1 && s[k] != compact) {
        return error(i, absl::StrCat("buffer '", p.buffer.name(),
                                     "' needs a compact row-major tensor, but strides[", k, "] is ",
                                     s[k], " instead of ", compact));
      }
      compact *= std::max<int64_t>(t.shape[k], 1);
    }
    for (const EntryBinding& b : p.bindings) {
      const int64_t value = EntryValue(b.entry, t, s);
      if (b.wrap(static_cast<uint64_t>(value)) != value) {
        return error(
            i, absl::StrCat(b.entry.Name(), " = ", value, " does not fit variable '", b.var, "'"));
      }
      f.slots[b.slot] = IntLane(value);
    }
    // Elements [0, size) from data + byte_offset are the tensor's.
    int64_t size = empty ? 0 : 1;
    for (int k = 0; k < t.ndim && !empty; ++k) {
      int64_t span;
      if (__builtin_mul_overflow(t.shape[k] - 1, s[k], &span) ||
          __builtin_add_overflow(size, span, &size)) {
        return error(i, "the tensor spans more elements than fit in int64");
      }
    }
    if (t.data == nullptr && size > 0) return error(i, "the tensor's data is null");
    std::byte* data = static_cast<std::byte*>(t.data);
    if (data != nullptr) data += t.byte_offset;
    f.buffers[p.binding] = BufferBinding{data, size, nullptr};
  }
  for (const EntryCheck& check : plans.checks) {
    const int64_t want = check.expected->Eval(f).i;
    if (f.failed()) return f.run->status;
    const int64_t got = EntryValue(check.entry, *tensors[check.param], strides[check.param]);
    if (got != want) {
      return error(check.param, absl::StrCat(check.entry.Name(), " is ", got, " but must equal ",
                                             check.text, " = ", want));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::interp::detail
