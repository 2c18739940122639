#pragma once

#include <absl/status/statusor.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// A compilation target, written as a string: a kind followed by options,
//   "llvm -mcpu=znver3 -mattr=+avx2,+fma -fast-math-contract"
// Options are `-key=value` or a bare `-flag`. Each kind accepts its own options:
//   llvm: -mtriple=T (default: the host's), -mcpu=NAME or native (default: generic),
//         -mattr=+f,-g (CPU features), -opt-level=0..3 (default 3),
//         -fast-math (every fast-math flag), -fast-math-contract (only fusing a*b+c into fma).
// Without a fast-math option, floating point is strict IEEE (see ir/node.h).
namespace tessel::target {

class Target {
 public:
  // The kinds a target string may start with.
  static std::vector<std::string> Kinds();
  // Parses text; an error names the unknown kind or option, or the malformed word.
  static absl::StatusOr<Target> Parse(std::string_view text);

  const std::string& kind() const { return kind_; }
  // The value of `-key=value` (key without the dash), if given.
  std::optional<std::string> Option(std::string_view key) const;
  // Whether the bare flag `-name` is given.
  bool HasFlag(std::string_view name) const;
  // A copy with `-key=value` set: replaced where the key is given, appended otherwise.
  Target WithOption(std::string_view key, std::string_view value) const;
  // The canonical string (options in the order given).
  std::string ToString() const;

 private:
  std::string kind_;
  // (key, value); a flag has an empty value and `is_flag`.
  struct Entry {
    std::string key, value;
    bool is_flag = false;
  };
  std::vector<Entry> entries_;
};

}  // namespace tessel::target
