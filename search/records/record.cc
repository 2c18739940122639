#include "search/records/record.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <array>
#include <limits>
#include <utility>

#include "compiler/support/status_macros.h"

namespace tessel::search {

namespace {

constexpr std::array<std::pair<ErrorKind, const char*>, 10> kErrorNames = {{
    {ErrorKind::kNone, "none"},
    {ErrorKind::kInstantiation, "instantiation"},
    {ErrorKind::kHostCompile, "host_compile"},
    {ErrorKind::kDeviceCompile, "device_compile"},
    {ErrorKind::kRuntime, "runtime"},
    {ErrorKind::kWrongAnswer, "wrong_answer"},
    {ErrorKind::kBuildTimeout, "build_timeout"},
    {ErrorKind::kRunTimeout, "run_timeout"},
    {ErrorKind::kResourceLimit, "resource_limit"},
    {ErrorKind::kUnknown, "unknown"},
}};

absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

absl::Status TypeError(const std::string& field, const char* expected, const nlohmann::json& j) {
  return FieldError(field,
                    absl::StrCat("expected ", expected, ", got ", std::string(j.type_name())));
}

// The field `key` of object `json` (whose path is `prefix`), or an error naming it.
absl::StatusOr<const nlohmann::json*> Field(const nlohmann::json& json, const std::string& prefix,
                                            const std::string& key) {
  auto it = json.find(key);
  if (it == json.end()) return FieldError(prefix + key, "missing");
  return &*it;
}

absl::StatusOr<double> NumberField(const nlohmann::json& json, const std::string& prefix,
                                   const std::string& key) {
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* j, Field(json, prefix, key));
  if (!j->is_number()) return TypeError(prefix + key, "a number", *j);
  return j->get<double>();
}

absl::StatusOr<int64_t> IntField(const nlohmann::json& json, const std::string& prefix,
                                 const std::string& key) {
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* j, Field(json, prefix, key));
  if (!j->is_number_integer()) return TypeError(prefix + key, "an integer", *j);
  return j->get<int64_t>();
}

absl::StatusOr<MeasureResult> ResultFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return TypeError("result", "an object", json);
  MeasureResult result;
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* costs, Field(json, "result.", "costs"));
  if (!costs->is_array()) return TypeError("result.costs", "an array of numbers", *costs);
  for (const nlohmann::json& c : *costs) {
    if (!c.is_number() || c.get<double>() < 0) {
      return FieldError("result.costs",
                        absl::StrCat("expected non-negative numbers, got ", c.dump()));
    }
    result.costs.push_back(c.get<double>());
  }
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* error, Field(json, "result.", "error"));
  if (!error->is_string()) return TypeError("result.error", "a string", *error);
  absl::StatusOr<ErrorKind> kind = ErrorKindFromName(error->get<std::string>());
  if (!kind.ok()) return FieldError("result.error", std::string(kind.status().message()));
  result.error = *kind;
  // The message is optional: a success has none.
  if (auto it = json.find("error_message"); it != json.end()) {
    if (!it->is_string()) return TypeError("result.error_message", "a string", *it);
    result.error_message = it->get<std::string>();
  }
  TESSEL_ASSIGN_OR_RETURN(result.build_seconds, NumberField(json, "result.", "build_seconds"));
  TESSEL_ASSIGN_OR_RETURN(result.timestamp, NumberField(json, "result.", "timestamp"));
  return result;
}

}  // namespace

const char* ErrorKindName(ErrorKind kind) {
  for (const auto& [k, name] : kErrorNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

absl::StatusOr<ErrorKind> ErrorKindFromName(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& [k, n] : kErrorNames) {
    if (name == n) return k;
    names.push_back(n);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown error kind '", name, "'; known: ", absl::StrJoin(names, ", ")));
}

double MeanCost(const MeasureResult& result) {
  if (result.error != ErrorKind::kNone || result.costs.empty()) {
    return std::numeric_limits<double>::infinity();
  }
  double sum = 0;
  for (double c : result.costs) sum += c;
  return sum / static_cast<double>(result.costs.size());
}

nlohmann::json ToJson(const Record& record) {
  const MeasureResult& r = record.result;
  return {
      {"version", record.version},
      {"task", record.task.ToJson()},
      {"config", record.config},
      {"config_index", record.config_index},
      {"result",
       {{"costs", r.costs},
        {"error", ErrorKindName(r.error)},
        {"error_message", r.error_message},
        {"build_seconds", r.build_seconds},
        {"timestamp", r.timestamp}}},
  };
}

absl::StatusOr<Record> RecordFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return TypeError("record", "an object", json);
  Record record;
  TESSEL_ASSIGN_OR_RETURN(int64_t version, IntField(json, "", "version"));
  if (version != kRecordVersion) {
    return FieldError("version", absl::StrCat("unsupported record version ", version,
                                              " (this build reads version ", kRecordVersion, ")"));
  }
  record.version = static_cast<int>(version);
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* task, Field(json, "", "task"));
  TESSEL_ASSIGN_OR_RETURN(record.task, Task::FromJson(*task));
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* config, Field(json, "", "config"));
  if (!config->is_object()) return TypeError("config", "an object", *config);
  record.config = *config;
  TESSEL_ASSIGN_OR_RETURN(record.config_index, IntField(json, "", "config_index"));
  // Config::ToJson repeats the index; two different numbers mean a corrupt or hand-edited line.
  if (auto it = config->find("index");
      it != config->end() &&
      (!it->is_number_integer() || it->get<int64_t>() != record.config_index)) {
    return FieldError("config.index", absl::StrCat(it->dump(), " disagrees with config_index ",
                                                   record.config_index));
  }
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* result, Field(json, "", "result"));
  TESSEL_ASSIGN_OR_RETURN(record.result, ResultFromJson(*result));
  return record;
}

}  // namespace tessel::search
