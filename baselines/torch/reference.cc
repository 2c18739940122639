#include "baselines/torch/reference.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <exception>
#include <map>

#include "baselines/torch/reference_ops.h"
#include "compiler/support/check.h"

namespace tessel::baselines {
namespace {

using internal::ReferenceEntry;
using internal::ReferenceFn;

const std::map<std::string, ReferenceFn>& Table() {
  static const std::map<std::string, ReferenceFn>* table = [] {
    auto* t = new std::map<std::string, ReferenceFn>;
    for (auto group :
         {internal::ConvReferences, internal::LinearReferences, internal::NnReferences,
          internal::TransformReferences, internal::BitserialReferences, internal::Int8References}) {
      for (const ReferenceEntry& e : group()) {
        TESSEL_CHECK(t->emplace(e.op, e.fn).second) << "two references for " << e.op;
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace

absl::StatusOr<std::vector<runtime::NDArray>> TorchReference(
    const std::string& op, const ops::OpArgs& args, const std::vector<runtime::NDArray>& inputs) {
  const auto it = Table().find(op);
  if (it == Table().end()) {
    return absl::NotFoundError(
        absl::StrCat("no libtorch reference for operator '", op,
                     "'; known: ", absl::StrJoin(TorchReferenceOps(), ", ")));
  }
  // Arguments and inputs are checked before torch runs, so an exception here is a case those
  // checks missed; it still becomes an error rather than an abort.
  try {
    return it->second(op, args, inputs);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(op, ": libtorch failed: ", e.what()));
  }
}

std::vector<std::string> TorchReferenceOps() {
  std::vector<std::string> ops;
  for (const auto& [name, fn] : Table()) ops.push_back(name);
  return ops;
}

}  // namespace tessel::baselines
