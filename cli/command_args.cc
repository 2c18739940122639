#include "cli/command_args.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

namespace tessel::cli {
namespace {

std::string Known(const ArgSpec& spec) {
  std::vector<std::string> names;
  for (const auto& [name, help] : spec.flags) names.push_back(absl::StrCat("--", name));
  for (const auto& [name, help] : spec.switches) names.push_back(absl::StrCat("--", name));
  for (const auto& [alias, name] : spec.aliases) names.push_back(absl::StrCat("-", alias));
  return absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<CommandArgs> CommandArgs::Parse(const std::string& command,
                                               std::span<const std::string> args,
                                               const ArgSpec& spec) {
  CommandArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.empty() || word[0] != '-' || word == "-") {
      parsed.positional_.push_back(word);
      continue;
    }
    std::string name;
    if (word.starts_with("--")) {
      name = word.substr(2);
    } else if (auto it = spec.aliases.find(word.substr(1)); it != spec.aliases.end()) {
      name = it->second;
    }
    if (spec.switches.contains(name)) {
      parsed.switches_.insert(name);
      continue;
    }
    if (name.empty() || !spec.flags.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", command, "' does not take '", word, "' (it takes ", Known(spec), ")"));
    }
    if (i + 1 == args.size())
      return absl::InvalidArgumentError(absl::StrCat(word, " needs a value"));
    parsed.values_[name].push_back(args[++i]);
  }
  return parsed;
}

std::vector<std::string> CommandArgs::Values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<std::string> CommandArgs::Value(const std::string& name,
                                               const std::string& fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " is given ", it->second.size(), " times; give it once"));
  }
  return it->second.front();
}

absl::StatusOr<int64_t> CommandArgs::Int(const std::string& name, int64_t fallback) const {
  if (!values_.contains(name)) return fallback;
  absl::StatusOr<std::string> text = Value(name, "");
  if (!text.ok()) return text.status();
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " takes an integer, got '", *text, "'"));
  }
  return value;
}

}  // namespace tessel::cli
