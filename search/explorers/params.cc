#include "search/explorers/params.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>

namespace tessel::search {

ParamReader::ParamReader(std::string explorer, const nlohmann::json& params)
    : explorer_(std::move(explorer)), params_(params) {}

bool ParamReader::Present(const std::string& key) {
  known_.push_back(key);
  return params_.is_object() && params_.contains(key);
}

void ParamReader::Fail(const std::string& key, const std::string& message) {
  if (!first_error_.ok()) return;
  first_error_ = absl::InvalidArgumentError(
      absl::StrCat("explorer '", explorer_, "': parameter '", key, "' ", message));
}

void ParamReader::Int(const std::string& key, int* field, int min_value, int max_value) {
  if (!Present(key)) return;
  const nlohmann::json& v = params_.at(key);
  if (!v.is_number_integer()) {
    Fail(key, absl::StrCat("must be an integer, got ", v.dump()));
    return;
  }
  // A JSON integer may not fit an int (nor an int64_t, when unsigned).
  const bool too_big =
      v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max_value);
  const int64_t x = too_big ? 0 : v.get<int64_t>();
  if (too_big || x < min_value || x > max_value) {
    Fail(key, absl::StrCat("must be in [", min_value, ", ", max_value, "], got ", v.dump()));
    return;
  }
  *field = static_cast<int>(x);
}

void ParamReader::Double(const std::string& key, double* field, double min_value,
                         double max_value) {
  if (!Present(key)) return;
  const nlohmann::json& v = params_.at(key);
  if (!v.is_number()) {
    Fail(key, absl::StrCat("must be a number, got ", v.dump()));
    return;
  }
  const double x = v.get<double>();
  if (!(x >= min_value && x <= max_value)) {
    Fail(key, absl::StrCat("must be in [", min_value, ", ", max_value, "], got ", v.dump()));
    return;
  }
  *field = x;
}

absl::Status ParamReader::Finish() const {
  if (!params_.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "explorer '", explorer_, "': params must be a JSON object, got ", params_.dump()));
  }
  for (auto it = params_.begin(); it != params_.end(); ++it) {
    const std::string& key = it.key();
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      std::vector<std::string> known = known_;
      std::sort(known.begin(), known.end());
      return absl::InvalidArgumentError(absl::StrCat(
          "explorer '", explorer_, "': unknown parameter '", key,
          "'; known: ", known.empty() ? std::string("none") : absl::StrJoin(known, ", ")));
    }
  }
  return first_error_;
}

}  // namespace tessel::search
