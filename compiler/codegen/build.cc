#include "compiler/codegen/build.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>
#include <mutex>

#include "compiler/support/check.h"

namespace tessel::codegen {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, Backend> backends;
};

Registry& Backends() {
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

bool RegisterBackend(const std::string& kind, Backend backend) {
  Registry& r = Backends();
  std::lock_guard<std::mutex> lock(r.mu);
  const bool inserted = r.backends.emplace(kind, std::move(backend)).second;
  TESSEL_CHECK(inserted) << "target kind '" << kind << "' has two backends";
  return true;
}

std::vector<std::string> BackendKinds() {
  Registry& r = Backends();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> kinds;
  for (const auto& [kind, backend] : r.backends) kinds.push_back(kind);
  return kinds;
}

absl::StatusOr<runtime::Module> Build(const std::vector<ir::PrimFunc>& funcs,
                                      const target::Target& target, const BuildOptions& options) {
  Backend backend;
  {
    Registry& r = Backends();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.backends.find(target.kind());
    if (it != r.backends.end()) backend = it->second;
  }
  if (!backend) {
    return absl::UnimplementedError(absl::StrCat(
        "target '", target.ToString(), "': kind '", target.kind(),
        "' has no backend in this build (backends: ", absl::StrJoin(BackendKinds(), ", "), ")"));
  }
  return backend(funcs, target, options);
}

}  // namespace tessel::codegen
