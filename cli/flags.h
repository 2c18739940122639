#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>

// Command flags of the form `--name value`: each command states the names it takes; anything
// else is an error naming the word.
namespace tessel::cli {

class Flags {
 public:
  // Reads args; `known` maps each accepted flag name (without dashes) to its help text.
  static absl::StatusOr<Flags> Parse(const std::string& command, std::span<const std::string> args,
                                     const std::map<std::string, std::string>& known);

  // The integer value of --name, or fallback when absent; an error names the flag and value.
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t fallback) const;
  // The text of --name, or fallback when absent.
  std::string String(const std::string& name, const std::string& fallback) const;

 private:
  std::string command_;
  std::map<std::string, std::string> values_;
};

}  // namespace tessel::cli
