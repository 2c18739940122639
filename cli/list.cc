#include "cli/list.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <map>
#include <vector>

#include "compiler/codegen/build.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/template.h"
#include "compiler/target/target.h"
#include "compiler/target/target_facts.h"
#include "costmodels/cost_model.h"
#include "search/explorers/explorer.h"
#include "workloads/network_ops.h"
#include "workloads/networks/network.h"

namespace tessel::cli {

std::string RegistryListing() {
  // The registries of ../shared/DESIGN.md, in the order a compile meets them. Each module adds its
  // entries here as it lands; an empty registry says so rather than disappearing.
  // Each target kind with its options, and whether this build has its backend.
  std::string listing = absl::StrCat("targets: ", absl::StrJoin(target::Target::Kinds(), ", "),
                                     " (compiler/target/target.h)\n");
  const std::vector<std::string> backends = codegen::BackendKinds();
  for (const target::KindInfo& k : target::Target::KindInfos()) {
    std::vector<std::string> options;
    for (const std::string& o : k.options) options.push_back(absl::StrCat("-", o, "=..."));
    for (const std::string& f : k.flags) options.push_back(absl::StrCat("-", f));
    const bool built = std::find(backends.begin(), backends.end(), k.name) != backends.end();
    absl::StrAppend(&listing, "  ", k.name, ": ", absl::StrJoin(options, " "),
                    k.device ? " (a device: its kernels run from the -host program)" : "",
                    built ? "" : "; no backend in this build yet", "\n");
    // The kind's facts with no options given (for llvm: this machine).
    absl::StatusOr<target::Target> plain = target::Target::Parse(k.name);
    absl::StatusOr<target::TargetFacts> facts =
        plain.ok() ? target::DescribeTarget(*plain) : plain.status();
    absl::StrAppend(&listing, "    keys ", plain.ok() ? absl::StrJoin(plain->keys(), ", ") : "?",
                    "; facts: ", facts.ok() ? facts->ToString() : facts.status().message(), "\n");
  }
  // Templates grouped by the logical operator they compute (compiler/ops/OPERATORS.md).
  std::map<std::string, std::vector<std::string>> by_op;
  for (const ops::Template* t : ops::AllTemplates()) {
    by_op[t->op].push_back(absl::StrCat(t->name, " (", ops::TemplateKey(*t), ")"));
  }
  absl::StrAppend(&listing, "operators and templates: ", ops::AllTemplates().size(),
                  " templates for ", by_op.size(), " operators\n");
  for (const auto& [op, names] : by_op) {
    absl::StrAppend(&listing, "  ", op, ": ", absl::StrJoin(names, ", "), "\n");
  }
  absl::StrAppend(&listing,
                  "strategies (which template an operator uses untuned) for target keys: ",
                  absl::StrJoin(ops::StrategyKeys(), ", "), " (compiler/ops/strategy.h)\n");
  absl::StrAppend(&listing, "cost models: ", absl::StrJoin(costmodels::CostModelNames(), ", "),
                  " (costmodels/README.md)\n");
  absl::StrAppend(&listing, "explorers: ", absl::StrJoin(search::ExplorerNames(), ", "), "\n");
  absl::StrAppend(&listing,
                  "workloads: table2 (the paper's Table 2: C1-C12, D1-D9); operator "
                  "shapes of ",
                  absl::StrJoin(workloads::NetworkNames(), ", "), "\n");
  absl::StrAppend(&listing, "networks: ", absl::StrJoin(workloads::networks::NetworkNames(), ", "),
                  "; beyond the paper's: ",
                  absl::StrJoin(workloads::networks::ModernNetworkNames(), ", "),
                  "; Fig. 4's fusion workloads: ",
                  absl::StrJoin(workloads::networks::FusionWorkloadNames(), ", "),
                  " (--workload; `tessel export` writes the networks as ONNX)\n");
  return listing;
}

}  // namespace tessel::cli
