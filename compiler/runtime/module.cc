#include "compiler/runtime/module.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "compiler/runtime/device_name.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/generated_abi.h"
#include "compiler/support/check.h"

namespace tessel::runtime {
namespace {

bool TypeMatches(DLDataType got, DLDataType want) {
  if (want.code == kDLBool) {
    return got.lanes == want.lanes && got.bits == 8 && (got.code == kDLUInt || got.code == kDLBool);
  }
  return got.code == want.code && got.bits == want.bits && got.lanes == want.lanes;
}

bool FitsBits(int64_t value, int bits) {
  if (bits >= 64) return true;
  const int64_t bound = int64_t{1} << (bits - 1);
  return value >= -bound && value < bound;
}

std::string DimText(const FunctionSignature& sig, const DimSpec& d) {
  if (d.is_constant()) return absl::StrCat(d.value);
  const size_t n = sig.params.size();
  return static_cast<size_t>(d.slot) < n ? sig.params[d.slot].name
                                         : sig.bound_vars[d.slot - n].name;
}

int SlotBits(const FunctionSignature& sig, int slot) {
  const size_t n = sig.params.size();
  return static_cast<size_t>(slot) < n ? sig.params[slot].dtype.bits
                                       : sig.bound_vars[slot - n].bits;
}

}  // namespace

absl::Status PackArguments(const FunctionSignature& sig, std::span<const Arg> args,
                           std::vector<uint64_t>& slots, DLDeviceType device_type) {
  const std::vector<ParamSpec>& params = sig.params;
  if (args.size() != params.size()) {
    std::vector<std::string> names;
    for (const ParamSpec& p : params) names.push_back(p.name);
    return absl::InvalidArgumentError(
        absl::StrCat("function '", sig.name, "' expects ", params.size(), " arguments (",
                     absl::StrJoin(names, ", "), "), got ", args.size()));
  }
  auto error = [&](size_t i, const std::string& problem) {
    return absl::InvalidArgumentError(absl::StrCat("function '", sig.name, "' argument ", i,
                                                   " (parameter '", params[i].name,
                                                   "'): ", problem));
  };
  slots.assign(sig.num_slots(), 0);
  std::vector<bool> bound(sig.num_slots(), false);
  // Each tensor's bytes [first, second); empty for scalars and empty tensors.
  std::vector<std::pair<uintptr_t, uintptr_t>> extents(params.size(), {0, 0});
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpec& p = params[i];
    if (p.kind == ParamSpec::Kind::kFloat) {
      const double* d = std::get_if<double>(&args[i]);
      if (d == nullptr)
        return error(i, absl::StrCat("expects a double for ", DLTypeToString(p.dtype)));
      slots[i] = std::bit_cast<uint64_t>(*d);
      bound[i] = true;
    } else if (p.kind == ParamSpec::Kind::kInt) {
      const int64_t* v = std::get_if<int64_t>(&args[i]);
      if (v == nullptr)
        return error(i, absl::StrCat("expects an int64_t for ", DLTypeToString(p.dtype)));
      const bool fits = p.dtype.code == kDLUInt && p.dtype.bits < 64
                            ? *v >= 0 && *v < (int64_t{1} << p.dtype.bits)
                            : FitsBits(*v, p.dtype.bits);
      if (!fits) return error(i, absl::StrCat(*v, " does not fit ", DLTypeToString(p.dtype)));
      slots[i] = static_cast<uint64_t>(*v);
      bound[i] = true;
    }
  }
  // Binds or checks one shape or stride entry of argument i.
  auto match = [&](size_t i, const DimSpec& spec, int64_t got,
                   const std::string& what) -> absl::Status {
    if (spec.is_constant()) {
      if (got != spec.value)
        return error(i, absl::StrCat(what, " is ", got, ", expected ", spec.value));
      return absl::OkStatus();
    }
    const int64_t have = static_cast<int64_t>(slots[spec.slot]);
    if (bound[spec.slot]) {
      if (got != have) {
        return error(i, absl::StrCat(what, " is ", got, " but must equal ", DimText(sig, spec),
                                     " = ", have));
      }
      return absl::OkStatus();
    }
    if (!FitsBits(got, SlotBits(sig, spec.slot))) {
      return error(
          i, absl::StrCat(what, " = ", got, " does not fit variable '", DimText(sig, spec), "'"));
    }
    slots[spec.slot] = static_cast<uint64_t>(got);
    bound[spec.slot] = true;
    return absl::OkStatus();
  };
  const DLDevice* device = nullptr;  // that of the first tensor
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpec& p = params[i];
    if (p.kind != ParamSpec::Kind::kTensor) continue;
    DLTensor* const* tp = std::get_if<DLTensor*>(&args[i]);
    if (tp == nullptr || *tp == nullptr) return error(i, "expects a tensor (a non-null DLTensor*)");
    const DLTensor& t = **tp;
    if (TypeNumber(t.device) != device_type) {
      return error(i, absl::StrCat("the tensor is on ", DeviceName(t.device),
                                   "; this function takes tensors on ",
                                   device_type == kDLCPU ? "the host (cpu)"
                                                         : DeviceTypeName(device_type),
                                   " (NDArray::CopyTo moves one there)"));
    }
    if (device == nullptr) {
      device = &t.device;
    } else if (t.device.device_id != device->device_id) {
      return error(i, absl::StrCat("the tensor is on ", DeviceName(t.device),
                                   " but an earlier one is on ", DeviceName(*device)));
    }
    std::vector<std::string> dims;
    for (const DimSpec& d : p.shape) dims.push_back(DimText(sig, d));
    const std::string expected =
        absl::StrCat(DLTypeToString(p.dtype), " tensor of rank ", p.shape.size(), " (shape [",
                     absl::StrJoin(dims, ", "), "])");
    if (t.ndim != static_cast<int>(p.shape.size())) {
      return error(i, absl::StrCat("expects a ", expected, ", got rank ", t.ndim));
    }
    if (!TypeMatches(t.dtype, p.dtype)) {
      return error(
          i, absl::StrCat("expects a ", expected, ", got ", DLTypeToString(t.dtype), " elements"));
    }
    if (t.ndim > 0 && t.shape == nullptr) return error(i, "the tensor has no shape");
    bool empty = false;
    for (int k = 0; k < t.ndim; ++k) {
      if (t.shape[k] < 0) return error(i, absl::StrCat("negative shape[", k, "] ", t.shape[k]));
      empty |= t.shape[k] == 0;
      if (absl::Status s = match(i, p.shape[k], t.shape[k], absl::StrCat("shape[", k, "]"));
          !s.ok()) {
        return s;
      }
    }
    int64_t compact = 1;
    for (int k = t.ndim - 1; k >= 0; --k) {
      const int64_t stride = t.strides != nullptr ? t.strides[k] : compact;
      const std::string what = absl::StrCat("strides[", k, "]");
      if (p.strides.empty()) {
        if (t.shape[k] > 1 && stride != compact) {
          return error(i, absl::StrCat("needs a compact row-major tensor, but ", what, " is ",
                                       stride, " instead of ", compact));
        }
      } else if (absl::Status s = match(i, p.strides[k], stride, what); !s.ok()) {
        return s;
      }
      compact *= std::max<int64_t>(t.shape[k], 1);
    }
    char* data = static_cast<char*>(t.data);
    if (data == nullptr && !empty) return error(i, "the tensor's data is null");
    if (data != nullptr) data += t.byte_offset;
    if (!empty && reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(p.alignment) != 0) {
      return error(i, absl::StrCat("data + byte_offset must be ", p.alignment,
                                   "-byte aligned (NDArray::Empty allocates so)"));
    }
    slots[i] = reinterpret_cast<uintptr_t>(data);
    if (!empty) {
      int64_t last = compact - 1;  // the offset of the last element
      if (t.strides != nullptr) {
        last = 0;
        for (int k = 0; k < t.ndim; ++k) last += (t.shape[k] - 1) * t.strides[k];
      }
      const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
      const uintptr_t bytes =
          static_cast<uintptr_t>(last + 1) * ((t.dtype.bits + 7) / 8) * t.dtype.lanes;
      extents[i] = {begin, begin + bytes};
    }
  }
  // The code assumes a written tensor shares no memory with another argument (noalias).
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].written || extents[i].first == extents[i].second) continue;
    for (size_t j = 0; j < params.size(); ++j) {
      if (j == i || extents[j].first == extents[j].second) continue;
      if (extents[i].first < extents[j].second && extents[j].first < extents[i].second) {
        return error(i, absl::StrCat("overlaps argument ", j, " (parameter '", params[j].name,
                                     "') in memory; the function writes '", params[i].name,
                                     "' and assumes no other argument aliases it"));
      }
    }
  }
  for (size_t k = params.size(); k < bound.size(); ++k) {
    if (!bound[k]) {
      return absl::InvalidArgumentError(absl::StrCat("function '", sig.name,
                                                     "': no argument defines variable '",
                                                     sig.bound_vars[k - params.size()].name, "'"));
    }
  }
  return absl::OkStatus();
}

Invoker HostInvoker(EntryFn entry) {
  return [entry](const uint64_t* slots) {
    if (entry(slots) != 0) return absl::InternalError(TakeGeneratedError());
    return absl::OkStatus();
  };
}

absl::Status Function::operator()(std::span<const Arg> args) const {
  std::vector<uint64_t> slots;
  if (absl::Status s = PackArguments(*signature_, args, slots, module_->device_type()); !s.ok()) {
    return s;
  }
  if (absl::Status s = invoke_(slots.data()); !s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("function '", signature_->name, "' failed: ", s.message()));
  }
  return absl::OkStatus();
}

ModuleNode::~ModuleNode() = default;

void Module::Import(Module device_module) {
  TESSEL_CHECK(defined()) << "Import into a null Module";
  TESSEL_CHECK(device_module.defined()) << "Import of a null Module into a " << kind() << " module";
  TESSEL_CHECK(!device_module.Reaches(node_.get()))
      << "importing the " << device_module.kind() << " module into the " << kind()
      << " module makes a cycle";
  node_->imports_.push_back(std::move(device_module));
}

const std::vector<Module>& Module::imports() const {
  TESSEL_CHECK(defined()) << "use of a null Module";
  return node_->imports();
}

bool Module::Reaches(const ModuleNode* node) const {
  if (node_.get() == node) return true;
  for (const Module& m : node_->imports()) {
    if (m.Reaches(node)) return true;
  }
  return false;
}

const FunctionSignature* Module::Find(const std::string& name,
                                      std::shared_ptr<const ModuleNode>& holder) const {
  for (const FunctionSignature& sig : node_->signatures()) {
    if (sig.name != name) continue;
    holder = node_;
    return &sig;
  }
  for (const Module& m : node_->imports()) {
    if (const FunctionSignature* sig = m.Find(name, holder)) return sig;
  }
  return nullptr;
}

absl::StatusOr<Function> Module::GetFunction(const std::string& name) const {
  std::shared_ptr<const ModuleNode> holder;
  if (const FunctionSignature* sig = Find(name, holder)) {
    absl::StatusOr<Invoker> invoke = holder->Entry(name);
    if (!invoke.ok()) return invoke.status();
    return Function(std::move(holder), *std::move(invoke), sig);
  }
  return absl::NotFoundError(absl::StrCat("no function '", name, "' in the module",
                                          node_->imports().empty() ? "" : " or its imports",
                                          " (it has: ", absl::StrJoin(FunctionNames(), ", "), ")"));
}

std::vector<std::string> Module::FunctionNames() const {
  std::vector<std::string> names;
  for (const FunctionSignature& sig : node_->signatures()) names.push_back(sig.name);
  for (const Module& m : node_->imports()) {
    for (std::string& name : m.FunctionNames()) {
      // A name already listed shadows this one (GetFunction finds the first).
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(std::move(name));
      }
    }
  }
  return names;
}

std::string Module::kind() const {
  TESSEL_CHECK(defined()) << "use of a null Module";
  return node_->kind();
}

absl::Status Module::Save(const std::string& path) const {
  TESSEL_CHECK(defined()) << "Save of a null Module";
  const std::vector<Module>& imports = node_->imports();
  if (!imports.empty()) {
    std::vector<std::string> kinds;
    for (const Module& m : imports) kinds.push_back(m.kind());
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot save the ", kind(), " module as '", path, "': it imports ", imports.size(),
        imports.size() == 1 ? " module (" : " modules (", absl::StrJoin(kinds, ", "),
        ") and a saved library cannot carry imported modules yet"));
  }
  return node_->Save(path);
}

}  // namespace tessel::runtime
