#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

// Command lines with positional words, `--name value` flags that may repeat, and switches
// (`--bench`), for commands whose arguments cli/flags.h's one-value-per-flag form does not fit
// (`tessel compile MODEL.onnx ... -o DIR`, `tessel run DIR --input a=A.npy --input b=B.npy`).
// A word starting with '-' is a flag or switch; anything else is positional.
namespace tessel::cli {

struct ArgSpec {
  std::map<std::string, std::string> flags;     // name (without dashes) -> help
  std::map<std::string, std::string> switches;  // name -> help
  std::map<std::string, std::string> aliases;   // short spelling (e.g. "o") -> flag name
};

class CommandArgs {
 public:
  // Errors (InvalidArgument) name the word: an unknown flag (listing the known ones), a flag
  // without its value.
  static absl::StatusOr<CommandArgs> Parse(const std::string& command,
                                           std::span<const std::string> args, const ArgSpec& spec);

  const std::vector<std::string>& positional() const { return positional_; }
  // Every value of --name, in order.
  std::vector<std::string> Values(const std::string& name) const;
  // The value of --name, or fallback when absent; given twice, an error naming the flag.
  absl::StatusOr<std::string> Value(const std::string& name, const std::string& fallback) const;
  // The integer value of --name, or fallback when absent; an error names the flag and value.
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t fallback) const;
  bool Switch(const std::string& name) const { return switches_.contains(name); }

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> switches_;
};

}  // namespace tessel::cli
