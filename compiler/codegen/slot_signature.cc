#include "compiler/codegen/slot_signature.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>

#include "compiler/ir/dl_type.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"

namespace tessel::codegen {

absl::StatusOr<SlotSignature> MakeSlotSignature(const ir::PrimFunc& func, const std::string& taker) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("function '", func->name, "': ", why));
  };
  SlotSignature out;
  runtime::FunctionSignature& sig = out.signature;
  sig.name = func->name;
  absl::flat_hash_set<const ir::VarNode*> written;
  ir::PreOrderVisit(
      func->body, [](const ir::Expr&) {},
      [&](const ir::Stmt& s) {
        if (const auto* store = s.as<ir::BufferStoreNode>()) {
          written.insert(store->buffer->data.get());
        }
      });
  absl::flat_hash_map<const ir::VarNode*, int> slot_of;
  for (const ir::Var& p : func->params) {
    runtime::ParamSpec spec;
    const ir::Buffer buffer = func.BufferOf(p);
    if (buffer.defined()) {
      spec.kind = runtime::ParamSpec::Kind::kTensor;
      spec.name = buffer.name();
      spec.dtype = ir::ToDLType(buffer->dtype);
      spec.alignment = buffer->alignment;
      spec.written = written.contains(p.get());
    } else if (p.dtype().is_scalar() && !p.dtype().is_handle()) {
      spec.kind =
          p.dtype().is_float() ? runtime::ParamSpec::Kind::kFloat : runtime::ParamSpec::Kind::kInt;
      spec.name = p.name();
      spec.dtype = ir::ToDLType(p.dtype());
    } else {
      return fail(absl::StrCat("parameter '", p.name(), "' of type ", p.dtype().ToString(),
                               " is neither a scalar nor the data of a buffer"));
    }
    if (!slot_of.emplace(p.get(), static_cast<int>(out.slot_vars.size())).second) {
      return fail(absl::StrCat("parameter '", p.name(), "' is listed twice"));
    }
    out.slot_vars.push_back(p);
    sig.params.push_back(std::move(spec));
  }
  for (size_t i = 0; i < func->params.size(); ++i) {
    const ir::Buffer buffer = func.BufferOf(func->params[i]);
    if (!buffer.defined()) continue;
    auto dim = [&](const ir::Expr& e, const std::string& what) -> absl::StatusOr<runtime::DimSpec> {
      runtime::DimSpec d;
      if (const int64_t* c = ir::AsConstInt(e)) {
        d.value = *c;
        return d;
      }
      const auto* var = e.as<ir::VarNode>();
      if (var == nullptr || !var->dtype.is_integer() || var->dtype.is_vector()) {
        return fail(absl::StrCat("buffer '", buffer.name(), "' ", what, " is ", ir::ToString(e),
                                 "; ", taker, " takes a constant or an integer variable"));
      }
      auto [it, added] = slot_of.emplace(var, static_cast<int>(out.slot_vars.size()));
      if (added) {
        out.slot_vars.push_back(ir::Var(Ref<const ir::VarNode>(const_cast<ir::VarNode*>(var))));
        sig.bound_vars.push_back({var->name, var->dtype.bits()});
      }
      d.slot = it->second;
      return d;
    };
    for (int k = 0; k < buffer.ndim(); ++k) {
      absl::StatusOr<runtime::DimSpec> d = dim(buffer->shape[k], absl::StrCat("shape[", k, "]"));
      if (!d.ok()) return d.status();
      sig.params[i].shape.push_back(*d);
    }
    if (!buffer->strides.empty() && static_cast<int>(buffer->strides.size()) != buffer.ndim()) {
      return fail(absl::StrCat("buffer '", buffer.name(), "' has ", buffer->strides.size(),
                               " strides for ", buffer.ndim(), " dimensions"));
    }
    for (size_t k = 0; k < buffer->strides.size(); ++k) {
      absl::StatusOr<runtime::DimSpec> d =
          dim(buffer->strides[k], absl::StrCat("strides[", k, "]"));
      if (!d.ok()) return d.status();
      sig.params[i].strides.push_back(*d);
    }
    // A variable elem_offset that nothing else defines is 0: element 0 sits at data +
    // byte_offset, as the runtime passes it.
    const auto* offset_var = buffer->elem_offset.as<ir::VarNode>();
    if (offset_var != nullptr && !slot_of.contains(offset_var)) {
      out.zero_offsets.push_back(
          ir::Var(Ref<const ir::VarNode>(const_cast<ir::VarNode*>(offset_var))));
    } else if (buffer->elem_offset.defined() && !ir::IsConstInt(buffer->elem_offset, 0)) {
      return fail(absl::StrCat("buffer '", buffer.name(), "' has elem_offset ",
                               ir::ToString(buffer->elem_offset),
                               "; element 0 must be at the tensor's data + byte_offset"));
    }
  }
  return out;
}

}  // namespace tessel::codegen
