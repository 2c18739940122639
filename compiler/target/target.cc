#include "compiler/target/target.h"

#include <absl/status/status.h>
#include <absl/strings/ascii.h>
#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

#include "compiler/support/check.h"

namespace tessel::target {
namespace {

const std::vector<KindInfo>& KindTable() {
  static const auto* kinds = new std::vector<KindInfo>{
      // cuda's -fast-math-contract lets NVRTC fuse a*b+c into an FMA (--fmad=true), as nvcc
      // does by default; without it the kernels' floats are strict IEEE.
      {"cuda", {"arch", "host"}, {"fast-math-contract"}, true},
      {"llvm",
       {"mtriple", "mcpu", "mattr", "opt-level", "num-cores"},
       {"fast-math", "fast-math-contract"}},
      {"opencl", {"device", "host"}, {}, true},
      {"vdla", {"config", "host"}, {}, true},
  };
  return *kinds;
}

const KindInfo* FindKind(std::string_view name) {
  for (const KindInfo& k : KindTable()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// Splits at spaces outside '...'; the quotes are dropped. An error names an unclosed quote.
absl::StatusOr<std::vector<std::string>> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(std::move(word));
      word.clear();
      any = false;
    } else {
      word.push_back(c);
      any = true;
    }
  }
  if (quoted) return absl::InvalidArgumentError("a quote (') is not closed");
  if (any) words.push_back(std::move(word));
  return words;
}

// Whether a value is valid for its option; an empty string if so, else why not.
std::string CheckValue(const std::string& kind, const std::string& key, const std::string& value) {
  if (key == "arch") {
    const bool digits = value.size() > 3 && absl::StartsWith(value, "sm_") &&
                        std::all_of(value.begin() + 3, value.end(), absl::ascii_isdigit);
    return digits ? "" : "must be sm_<compute capability>, e.g. sm_90";
  }
  if (key == "num-cores") {
    int cores = 0;
    return absl::SimpleAtoi(value, &cores) && cores >= 1 && cores <= 4096
               ? ""
               : "must be a number of threads from 1 to 4096";
  }
  if (key == "device" && kind == "opencl") {
    return value == "mali" ? "" : "must be mali (or leave -device out for any OpenCL device)";
  }
  if (key == "host") {
    absl::StatusOr<Target> host = Target::Parse(value);
    if (!host.ok()) return absl::StrCat("is not a target: ", host.status().message());
    if (host->kind() != "llvm") return absl::StrCat("must be an llvm target, not ", host->kind());
  }
  return "";
}

}  // namespace

std::vector<std::string> Target::Kinds() {
  std::vector<std::string> names;
  for (const KindInfo& k : KindTable()) names.push_back(k.name);
  return names;
}

std::vector<KindInfo> Target::KindInfos() { return KindTable(); }

Target Target::Llvm() {
  Target target;
  target.kind_ = "llvm";
  return target;
}

absl::StatusOr<Target> Target::Parse(std::string_view text) {
  auto error = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("target '", std::string(text), "': ", why));
  };
  absl::StatusOr<std::vector<std::string>> split = Words(text);
  if (!split.ok()) return error(std::string(split.status().message()));
  const std::vector<std::string>& words = *split;
  if (words.empty()) return absl::InvalidArgumentError("empty target string");
  const KindInfo* kind = FindKind(words[0]);
  if (kind == nullptr) {
    return error(
        absl::StrCat("unknown kind '", words[0], "' (known: ", absl::StrJoin(Kinds(), ", "), ")"));
  }
  Target target;
  target.kind_ = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto fail = [&](const std::string& why) {
      return error(absl::StrCat("option '", w, "' ", why));
    };
    if (w.size() < 2 || w[0] != '-') return fail("does not start with '-'");
    const size_t eq = w.find('=');
    Entry entry;
    entry.key = w.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
    if (eq == std::string::npos) {
      entry.is_flag = true;
      if (!Contains(kind->flags, entry.key)) {
        return fail(Contains(kind->options, entry.key)
                        ? "needs a value (-key=value)"
                        : absl::StrCat("is not known for kind '", target.kind_, "'"));
      }
    } else {
      entry.value = w.substr(eq + 1);
      if (!Contains(kind->options, entry.key)) {
        return fail(absl::StrCat("is not known for kind '", target.kind_, "'"));
      }
      if (entry.value.empty()) return fail("has an empty value");
      if (std::string why = CheckValue(target.kind_, entry.key, entry.value); !why.empty()) {
        return fail(why);
      }
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

Target Target::WithFlag(std::string_view name) const {
  if (HasFlag(name)) return *this;
  Target out = *this;
  out.entries_.push_back({std::string(name), "", true});
  return out;
}

std::string Target::ToString() const {
  std::string out = kind_;
  for (const Entry& e : entries_) {
    absl::StrAppend(&out, " -", e.key);
    if (e.is_flag) continue;
    const bool quote = absl::StrContains(e.value, ' ');
    absl::StrAppend(&out, "=", quote ? "'" : "", e.value, quote ? "'" : "");
  }
  return out;
}

std::vector<std::string> Target::keys() const {
  if (kind_ == "cuda") return {"cuda", "gpu"};
  if (kind_ == "opencl") {
    if (Option("device") == "mali") return {"mali", "opencl", "gpu"};
    return {"opencl", "gpu"};
  }
  if (kind_ == "vdla") return {"vdla"};
  const std::string triple = Option("mtriple").value_or("");
  if (absl::StartsWith(triple, "aarch64") || absl::StartsWith(triple, "arm")) {
    return {"arm_cpu", "cpu"};
  }
  return {"cpu"};
}

bool Target::HasKey(std::string_view key) const {
  const std::vector<std::string> all = keys();
  return std::find(all.begin(), all.end(), key) != all.end();
}

bool Target::is_device() const {
  const KindInfo* kind = FindKind(kind_);
  TESSEL_CHECK(kind != nullptr) << "a parsed target of unknown kind " << kind_;
  return kind->device;
}

Target Target::host() const {
  if (!is_device()) return *this;
  absl::StatusOr<Target> host = Parse(Option("host").value_or("llvm"));
  TESSEL_CHECK(host.ok()) << "a -host checked when parsed fails now: " << host.status().message();
  return *host;
}

}  // namespace tessel::target
