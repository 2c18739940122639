#include "compiler/ops/strategy.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>

#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops {
namespace {

std::map<std::string, Strategy>& Strategies() {
  static auto* strategies = new std::map<std::string, Strategy>();
  return *strategies;
}

}  // namespace

bool RegisterStrategy(const std::string& key, Strategy strategy) {
  TESSEL_CHECK(strategy != nullptr) << "strategy for key " << key << " is empty";
  const bool inserted = Strategies().emplace(key, std::move(strategy)).second;
  TESSEL_CHECK(inserted) << "strategy for key " << key << " registered twice";
  return true;
}

std::vector<std::string> StrategyKeys() {
  std::vector<std::string> keys;
  for (const auto& [key, strategy] : Strategies()) keys.push_back(key);
  return keys;
}

absl::StatusOr<const Template*> SelectTemplate(const std::string& op, const OpArgs& args,
                                               const target::TargetFacts& facts) {
  const std::vector<std::string> keys = facts.target.keys();
  std::vector<std::string> deferred;
  for (const std::string& key : keys) {
    auto it = Strategies().find(key);
    if (it == Strategies().end()) continue;
    absl::StatusOr<std::string> name = it->second(op, args, facts);
    if (absl::IsNotFound(name.status())) {
      deferred.push_back(key);
      continue;
    }
    if (!name.ok()) return name.status();
    TESSEL_ASSIGN_OR_RETURN(const Template* t, FindTemplate(*name));
    TESSEL_CHECK(t->op == op) << "strategy " << key << " chose " << *name << " for " << op;
    return t;
  }
  if (!deferred.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "no template computes operator '", op, "' for target '", facts.target.ToString(),
        "': the strategies of its keys ", absl::StrJoin(deferred, ", "), " have none"));
  }
  const std::vector<std::string> known = StrategyKeys();
  return absl::UnimplementedError(
      absl::StrCat("no template computes operator '", op, "' for target '", facts.target.ToString(),
                   "': this build has operator strategies for target keys ",
                   known.empty() ? "(none)" : absl::StrJoin(known, ", "),
                   ", the target's keys are ", absl::StrJoin(keys, ", ")));
}

std::vector<const Template*> TemplatesFor(const std::string& key, const std::string& op) {
  std::vector<const Template*> out;
  for (const Template* t : AllTemplates()) {
    if (t->op == op && TemplateKey(*t) == key) out.push_back(t);
  }
  return out;
}

}  // namespace tessel::ops
