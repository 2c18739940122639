#include "compiler/ops/op_args.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/status_macros.h"

namespace tessel::ops {
namespace {

std::string Shown(const nlohmann::json& v) { return v.dump(); }

}  // namespace

absl::Status ArgReader::Error(const std::string& message) const {
  return absl::InvalidArgumentError(absl::StrCat(what_, ": ", message));
}

absl::Status ArgReader::ErrorIn(const std::string& key, const absl::Status& status) const {
  return Error(absl::StrCat("argument '", key, "': ", status.message()));
}

absl::StatusOr<int64_t> ArgReader::Int(const std::string& key, int64_t min_value) const {
  if (!args_.is_object() || !args_.contains(key)) {
    return Error(absl::StrCat("missing argument '", key, "'"));
  }
  const nlohmann::json& v = args_.at(key);
  if (!v.is_number_integer()) {
    return Error(absl::StrCat("argument '", key, "' must be an integer, got ", Shown(v)));
  }
  const int64_t x = v.get<int64_t>();
  if (x < min_value) {
    return Error(absl::StrCat("argument '", key, "' must be at least ", min_value, ", got ", x));
  }
  return x;
}

absl::StatusOr<int64_t> ArgReader::IntOr(const std::string& key, int64_t fallback,
                                         int64_t min_value) const {
  if (!args_.is_object() || !args_.contains(key)) return fallback;
  return Int(key, min_value);
}

absl::StatusOr<std::vector<int64_t>> ArgReader::Ints(const std::string& key, int length,
                                                     int64_t min_value) const {
  if (!args_.is_object() || !args_.contains(key)) {
    return Error(absl::StrCat("missing argument '", key, "'"));
  }
  const nlohmann::json& v = args_.at(key);
  const std::string expected =
      length < 0 ? "a list of integers" : absl::StrCat("a list of ", length, " integers");
  if (!v.is_array() || (length >= 0 && static_cast<int>(v.size()) != length)) {
    return Error(absl::StrCat("argument '", key, "' must be ", expected, ", got ", Shown(v)));
  }
  std::vector<int64_t> out;
  for (const nlohmann::json& e : v) {
    if (!e.is_number_integer()) {
      return Error(absl::StrCat("argument '", key, "' must be ", expected, ", got ", Shown(v)));
    }
    const int64_t x = e.get<int64_t>();
    if (x < min_value) {
      return Error(absl::StrCat("argument '", key, "' entries must be at least ", min_value,
                                ", got ", Shown(v)));
    }
    out.push_back(x);
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ArgReader::IntsOr(const std::string& key, int length,
                                                       std::vector<int64_t> fallback,
                                                       int64_t min_value) const {
  if (!args_.is_object() || !args_.contains(key)) return fallback;
  return Ints(key, length, min_value);
}

absl::StatusOr<double> ArgReader::Float(const std::string& key) const {
  if (!args_.is_object() || !args_.contains(key)) {
    return Error(absl::StrCat("missing argument '", key, "'"));
  }
  const nlohmann::json& v = args_.at(key);
  if (!v.is_number()) {
    return Error(absl::StrCat("argument '", key, "' must be a number, got ", Shown(v)));
  }
  return v.get<double>();
}

absl::StatusOr<double> ArgReader::FloatOr(const std::string& key, double fallback) const {
  if (!args_.is_object() || !args_.contains(key)) return fallback;
  return Float(key);
}

absl::StatusOr<std::string> ArgReader::String(const std::string& key) const {
  if (!args_.is_object() || !args_.contains(key)) {
    return Error(absl::StrCat("missing argument '", key, "'"));
  }
  const nlohmann::json& v = args_.at(key);
  if (!v.is_string()) {
    return Error(absl::StrCat("argument '", key, "' must be a string, got ", Shown(v)));
  }
  return v.get<std::string>();
}

absl::StatusOr<std::string> ArgReader::StringOr(const std::string& key,
                                                std::string fallback) const {
  if (!args_.is_object() || !args_.contains(key)) return fallback;
  return String(key);
}

absl::StatusOr<bool> ArgReader::BoolOr(const std::string& key, bool fallback) const {
  if (!args_.is_object() || !args_.contains(key)) return fallback;
  const nlohmann::json& v = args_.at(key);
  if (!v.is_boolean()) {
    return Error(absl::StrCat("argument '", key, "' must be true or false, got ", Shown(v)));
  }
  return v.get<bool>();
}

absl::StatusOr<int64_t> ArgReader::Extent(const std::string& key) const {
  TESSEL_ASSIGN_OR_RETURN(int64_t v, Int(key));
  if (v >= (int64_t{1} << 31)) {
    return Error(absl::StrCat("argument '", key, "' must be below 2^31, got ", v));
  }
  return v;
}

absl::StatusOr<std::vector<int64_t>> ArgReader::Shape(const std::string& key) const {
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Ints(key, -1));
  if (shape.empty()) return Error(absl::StrCat("argument '", key, "' must not be empty"));
  for (int64_t v : shape) {
    if (v >= (int64_t{1} << 31)) {
      return Error(absl::StrCat("argument '", key, "' entries must be below 2^31, got ", v));
    }
  }
  return shape;
}

}  // namespace tessel::ops
