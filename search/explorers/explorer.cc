#include "search/explorers/explorer.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>

#include "compiler/support/check.h"

namespace tessel::search {
namespace {

// Factories by name; sorted, so ExplorerNames and the NotFound message come out in order.
std::map<std::string, ExplorerFactory>& Registry() {
  static auto* registry = new std::map<std::string, ExplorerFactory>();
  return *registry;
}

}  // namespace

void RegisterExplorer(const std::string& name, ExplorerFactory factory) {
  TESSEL_CHECK(factory) << "explorer " << name << " registered without a factory";
  const bool inserted = Registry().emplace(name, std::move(factory)).second;
  TESSEL_CHECK(inserted) << "explorer " << name << " registered twice";
}

absl::StatusOr<std::unique_ptr<Explorer>> MakeExplorer(const std::string& name,
                                                       const ConfigSpace& space,
                                                       const ExplorerOptions& options) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    const std::vector<std::string> names = ExplorerNames();
    return absl::NotFoundError(absl::StrCat("no explorer named '", name, "'; known: ",
                                            names.empty()
                                                ? std::string("none (no explorer library linked)")
                                                : absl::StrJoin(names, ", ")));
  }
  return it->second(space, options);
}

std::vector<std::string> ExplorerNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

}  // namespace tessel::search
