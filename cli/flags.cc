#include "cli/flags.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

namespace tessel::cli {

absl::StatusOr<Flags> Flags::Parse(const std::string& command, std::span<const std::string> args,
                                   const std::map<std::string, std::string>& known) {
  Flags flags;
  flags.command_ = command;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (!word.starts_with("--") || !known.contains(word.substr(2))) {
      std::vector<std::string> names;
      for (const auto& [name, help] : known) names.push_back(absl::StrCat("--", name));
      return absl::InvalidArgumentError(absl::StrCat("'", command, "' does not take '", word,
                                                     "' (it takes ", absl::StrJoin(names, ", "),
                                                     ")"));
    }
    if (i + 1 == args.size()) {
      return absl::InvalidArgumentError(absl::StrCat(word, " needs a value"));
    }
    flags.values_[word.substr(2)] = args[++i];
  }
  return flags;
}

absl::StatusOr<int64_t> Flags::Int(const std::string& name, int64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " takes an integer, got '", it->second, "'"));
  }
  return value;
}

std::string Flags::String(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

}  // namespace tessel::cli
