#include "search/task/task.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>

#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"

namespace tessel::search {

namespace {

absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("task.", field, ": ", what));
}

absl::StatusOr<std::string> StringField(const nlohmann::json& json, const std::string& field) {
  auto it = json.find(field);
  if (it == json.end()) return FieldError(field, "missing");
  if (!it->is_string()) {
    return FieldError(field, absl::StrCat("expected a string, got ", std::string(it->type_name())));
  }
  return it->get<std::string>();
}

}  // namespace

std::string Task::Key() const {
  // nlohmann::json keeps object keys in a std::map, so dump() is canonical in key order.
  return absl::StrCat(template_name, "|", args.dump(), "|", target.ToString());
}

nlohmann::json Task::ToJson() const {
  return {{"template", template_name}, {"args", args}, {"target", target.ToString()}};
}

absl::StatusOr<Task> Task::FromJson(const nlohmann::json& json) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("task: expected an object, got ", std::string(json.type_name())));
  }
  Task task;
  TESSEL_ASSIGN_OR_RETURN(task.template_name, StringField(json, "template"));
  TESSEL_ASSIGN_OR_RETURN(const std::string target, StringField(json, "target"));
  absl::StatusOr<target::Target> parsed = target::Target::Parse(target);
  if (!parsed.ok()) return FieldError("target", std::string(parsed.status().message()));
  task.target = *std::move(parsed);
  auto it = json.find("args");
  if (it == json.end()) return FieldError("args", "missing");
  if (!it->is_object()) {
    return FieldError("args",
                      absl::StrCat("expected an object, got ", std::string(it->type_name())));
  }
  task.args = *it;
  return task;
}

absl::StatusOr<ConfigSpace> Space(const Task& task, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::FindTemplate(task.template_name));
  return t->space(task.args, facts);
}

}  // namespace tessel::search
