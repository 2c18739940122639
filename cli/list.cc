#include "cli/list.h"

#include <absl/strings/str_cat.h>

namespace tessel::cli {

std::string RegistryListing() {
  // The registries of ../shared/DESIGN.md, in the order a compile meets them. Each module adds its
  // entries here as it lands; an empty registry says so rather than disappearing.
  constexpr const char* kRegistries[] = {"targets", "operators and templates", "cost models",
                                         "explorers", "workloads"};
  std::string listing;
  for (const char* registry : kRegistries)
    absl::StrAppend(&listing, registry, ": none registered\n");
  return listing;
}

}  // namespace tessel::cli
