#include "cli/list.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include "compiler/driver/target.h"

namespace tessel::cli {

std::string RegistryListing() {
  // The registries of ../shared/DESIGN.md, in the order a compile meets them. Each module adds its
  // entries here as it lands; an empty registry says so rather than disappearing.
  std::string listing = absl::StrCat("targets: ", absl::StrJoin(driver::Target::Kinds(), ", "),
                                     " (see compiler/driver/target.h for their options)\n");
  constexpr const char* kRegistries[] = {"operators and templates", "cost models", "explorers",
                                         "workloads"};
  for (const char* registry : kRegistries)
    absl::StrAppend(&listing, registry, ": none registered\n");
  return listing;
}

}  // namespace tessel::cli
