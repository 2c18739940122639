#include "experiments/nightly/record.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "compiler/support/atomic_file.h"
#include "compiler/support/status_macros.h"

namespace tessel::experiments::nightly {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

absl::Status Expected(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": expected ", what));
}

absl::Status Missing(const std::string& path) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": missing"));
}

// The member `key` of the object j; `path` is j's own JSON path ("" at the top).
absl::StatusOr<const nlohmann::json*> Member(const nlohmann::json& j, const std::string& path,
                                             const std::string& key) {
  const std::string at = path.empty() ? key : absl::StrCat(path, ".", key);
  auto it = j.find(key);
  if (it == j.end()) return Missing(at);
  return &*it;
}

std::string At(const std::string& path, const std::string& key) {
  return path.empty() ? key : absl::StrCat(path, ".", key);
}

absl::StatusOr<std::string> String(const nlohmann::json& j, const std::string& path,
                                   const std::string& key) {
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* v, Member(j, path, key));
  if (!v->is_string()) return Expected(At(path, key), "a string");
  return v->get<std::string>();
}

// JSON has no NaN: a figure that was not measured is written as null and read back as NaN.
absl::StatusOr<double> NumberOrNull(const nlohmann::json& v, const std::string& at) {
  if (v.is_null()) return kNaN;
  if (!v.is_number()) return Expected(at, "a number");
  return v.get<double>();
}

absl::StatusOr<Figure> FigureFromJson(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) return Expected(path, "an object");
  Figure f;
  TESSEL_ASSIGN_OR_RETURN(f.name, String(j, path, "name"));
  if (f.name.empty()) return Expected(At(path, "name"), "a non-empty string");
  TESSEL_ASSIGN_OR_RETURN(f.family, String(j, path, "family"));
  TESSEL_ASSIGN_OR_RETURN(f.unit, String(j, path, "unit"));
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* better, Member(j, path, "higher_is_better"));
  if (!better->is_boolean()) return Expected(At(path, "higher_is_better"), "true or false");
  f.higher_is_better = better->get<bool>();
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* value, Member(j, path, "value"));
  TESSEL_ASSIGN_OR_RETURN(f.value, NumberOrNull(*value, At(path, "value")));
  if (auto it = j.find("repeats"); it != j.end()) {
    if (!it->is_array()) return Expected(At(path, "repeats"), "an array of numbers");
    for (const nlohmann::json& r : *it) {
      if (!r.is_number()) return Expected(At(path, "repeats"), "an array of numbers");
      f.repeats.push_back(r.get<double>());
    }
  }
  if (auto it = j.find("absolute"); it != j.end()) {
    if (!it->is_object()) return Expected(At(path, "absolute"), "an object");
    f.absolute = *it;
  }
  return f;
}

nlohmann::json FigureToJson(const Figure& f) {
  nlohmann::json j;
  j["name"] = f.name;
  j["family"] = f.family;
  j["unit"] = f.unit;
  j["higher_is_better"] = f.higher_is_better;
  j["value"] = std::isfinite(f.value) ? nlohmann::json(f.value) : nlohmann::json(nullptr);
  j["repeats"] = f.repeats;
  j["absolute"] = f.absolute;
  return j;
}

std::string Dump(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

const Figure* Record::Find(const std::string& name) const {
  for (const Figure& f : figures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

nlohmann::json ToJson(const Record& r) {
  nlohmann::json j;
  j["date"] = r.date;
  j["commit"] = r.commit;
  j["state"] = r.state;
  j["suite"] = r.suite;
  j["machine"] = r.machine;
  j["cpu"] = r.cpu;
  j["threads"] = r.threads;
  j["runs"] = r.runs;
  j["versions"] = r.versions;
  j["figures"] = nlohmann::json::array();
  for (const Figure& f : r.figures) j["figures"].push_back(FigureToJson(f));
  return j;
}

absl::StatusOr<Record> RecordFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("expected a JSON object (one record)");
  Record r;
  TESSEL_ASSIGN_OR_RETURN(r.date, String(j, "", "date"));
  TESSEL_ASSIGN_OR_RETURN(r.commit, String(j, "", "commit"));
  TESSEL_ASSIGN_OR_RETURN(r.state, String(j, "", "state"));
  TESSEL_ASSIGN_OR_RETURN(r.suite, String(j, "", "suite"));
  TESSEL_ASSIGN_OR_RETURN(r.machine, String(j, "", "machine"));
  TESSEL_ASSIGN_OR_RETURN(r.cpu, String(j, "", "cpu"));
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* threads, Member(j, "", "threads"));
  if (!threads->is_number_integer() || threads->get<int>() < 1) {
    return Expected("threads", "a positive integer");
  }
  r.threads = threads->get<int>();
  // Absent in records written before merged baselines existed.
  if (auto it = j.find("runs"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int>() < 1)
      return Expected("runs", "a positive integer");
    r.runs = it->get<int>();
  }
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* versions, Member(j, "", "versions"));
  if (!versions->is_object()) return Expected("versions", "an object");
  r.versions = *versions;
  TESSEL_ASSIGN_OR_RETURN(const nlohmann::json* figures, Member(j, "", "figures"));
  if (!figures->is_array()) return Expected("figures", "an array");
  std::set<std::string> names;
  for (size_t i = 0; i < figures->size(); ++i) {
    const std::string path = absl::StrCat("figures[", i, "]");
    TESSEL_ASSIGN_OR_RETURN(Figure f, FigureFromJson((*figures)[i], path));
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".name: '", f.name, "' names an earlier figure too"));
    }
    r.figures.push_back(std::move(f));
  }
  return r;
}

absl::StatusOr<std::vector<Record>> ReadHistory(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::vector<Record>{};
  TESSEL_ASSIGN_OR_RETURN(const std::string text, support::ReadFile(path));
  std::vector<Record> records;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == absl::string_view::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": not a JSON object (a torn or edited line?)"));
    }
    absl::StatusOr<Record> r = RecordFromJson(j);
    if (!r.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", r.status().message()));
    }
    records.push_back(*std::move(r));
  }
  return records;
}

absl::Status AppendHistory(const std::string& path, const Record& r) {
  std::string text;
  std::error_code error;
  if (std::filesystem::exists(path, error)) {
    TESSEL_ASSIGN_OR_RETURN(text, support::ReadFile(path));
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  text += Dump(ToJson(r), -1);
  text += '\n';
  return support::WriteFileAtomically(path, text);
}

absl::StatusOr<Record> ReadBaseline(const std::string& path) {
  absl::StatusOr<std::string> text = support::ReadFile(path);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the baseline '", path,
                     "' (tessel bench nightly --update-baseline writes it)"));
  }
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not JSON"));
  }
  absl::StatusOr<Record> r = RecordFromJson(j);
  if (!r.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", r.status().message()));
  }
  return r;
}

absl::Status WriteBaseline(const std::string& path, const Record& r) {
  return support::WriteFileAtomically(path, Dump(ToJson(r), 2) + "\n");
}

Figure MakeFigure(const std::string& name, const std::string& family, const std::string& unit,
                  bool higher_is_better) {
  Figure f;
  f.name = name;
  f.family = family;
  f.unit = unit;
  f.higher_is_better = higher_is_better;
  return f;
}

}  // namespace tessel::experiments::nightly
