#include "compiler/codegen/interp/extern.h"

#include <absl/strings/str_cat.h>

namespace tessel::interp {

ExternRegistry& ExternRegistry::Global() {
  static ExternRegistry* registry = new ExternRegistry();
  return *registry;
}

absl::Status ExternRegistry::Register(std::string name, ExternFunction fn) {
  if (!fn) return absl::InvalidArgumentError(absl::StrCat("extern function '", name, "' is empty"));
  std::lock_guard<std::mutex> lock(mutex_);
  if (functions_.count(name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("an extern function named '", name, "' is already registered"));
  }
  functions_.emplace(std::move(name), std::move(fn));
  return absl::OkStatus();
}

absl::Status ExternRegistry::Unregister(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (functions_.erase(name) == 0) {
    return absl::NotFoundError(absl::StrCat("no extern function named '", name, "'"));
  }
  return absl::OkStatus();
}

ExternFunction ExternRegistry::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = functions_.find(name);
  return it == functions_.end() ? ExternFunction() : it->second;
}

}  // namespace tessel::interp
