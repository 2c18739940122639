#include "compiler/target/target.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <map>

namespace tessel::target {
namespace {

struct KindOptions {
  std::vector<std::string> keys;   // -key=value
  std::vector<std::string> flags;  // -flag
};

const std::map<std::string, KindOptions>& KindTable() {
  static const auto* kinds = new std::map<std::string, KindOptions>{
      {"llvm", {{"mtriple", "mcpu", "mattr", "opt-level"}, {"fast-math", "fast-math-contract"}}},
  };
  return *kinds;
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

std::vector<std::string> Target::Kinds() {
  std::vector<std::string> names;
  for (const auto& [name, options] : KindTable()) names.push_back(name);
  return names;
}

absl::StatusOr<Target> Target::Parse(std::string_view text) {
  std::vector<std::string> words = absl::StrSplit(std::string(text), ' ', absl::SkipEmpty());
  if (words.empty()) return absl::InvalidArgumentError("empty target string");
  auto kind = KindTable().find(words[0]);
  if (kind == KindTable().end()) {
    const std::vector<std::string> names = Kinds();
    return absl::InvalidArgumentError(absl::StrCat("target '", std::string(text),
                                                   "': unknown kind '", words[0],
                                                   "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  Target target;
  target.kind_ = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto fail = [&](const std::string& why) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", std::string(text), "': option '", w, "' ", why));
    };
    if (w.size() < 2 || w[0] != '-') return fail("does not start with '-'");
    const size_t eq = w.find('=');
    Entry entry;
    entry.key = w.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
    if (eq == std::string::npos) {
      entry.is_flag = true;
      if (!Contains(kind->second.flags, entry.key)) {
        return fail(Contains(kind->second.keys, entry.key)
                        ? "needs a value (-key=value)"
                        : absl::StrCat("is not known for kind '", target.kind_, "'"));
      }
    } else {
      entry.value = w.substr(eq + 1);
      if (!Contains(kind->second.keys, entry.key)) {
        return fail(absl::StrCat("is not known for kind '", target.kind_, "'"));
      }
      if (entry.value.empty()) return fail("has an empty value");
    }
    for (const Entry& e : target.entries_) {
      if (e.key == entry.key) return fail("is given twice");
    }
    target.entries_.push_back(std::move(entry));
  }
  return target;
}

std::optional<std::string> Target::Option(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (!e.is_flag && e.key == key) return e.value;
  }
  return std::nullopt;
}

bool Target::HasFlag(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.is_flag && e.key == name) return true;
  }
  return false;
}

Target Target::WithOption(std::string_view key, std::string_view value) const {
  Target out = *this;
  for (Entry& e : out.entries_) {
    if (e.key == key) {
      e.value = std::string(value);
      e.is_flag = false;
      return out;
    }
  }
  out.entries_.push_back({std::string(key), std::string(value), false});
  return out;
}

std::string Target::ToString() const {
  std::string out = kind_;
  for (const Entry& e : entries_) {
    absl::StrAppend(&out, " -", e.key, e.is_flag ? "" : absl::StrCat("=", e.value));
  }
  return out;
}

}  // namespace tessel::target
