#pragma once

#include <absl/status/status.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// Reading an explorer's params JSON (ExplorerOptions::params) into its parameters struct. The keys
// are the struct's field names; a key is optional (the struct's default stays), an unknown key, a
// value of the wrong type or out of range is an InvalidArgument naming the explorer and the key.
namespace tessel::search {

class ParamReader {
 public:
  // explorer: the registered name, for messages.
  ParamReader(std::string explorer, const nlohmann::json& params);

  // Each sets *field when the key is present and valid, and records the first error otherwise.
  void Int(const std::string& key, int* field, int min_value,
           int max_value = std::numeric_limits<int>::max());
  void Double(const std::string& key, double* field, double min_value, double max_value);
  // An error about a key that is valid alone but not with the others.
  void Fail(const std::string& key, const std::string& message);

  // Ok, or the first problem: params not an object, a key no call above asked for (listing the
  // known keys), or the first error recorded.
  absl::Status Finish() const;

 private:
  // Whether the key is present; registers it as known either way.
  bool Present(const std::string& key);

  std::string explorer_;
  const nlohmann::json& params_;
  std::vector<std::string> known_;
  absl::Status first_error_;
};

}  // namespace tessel::search
