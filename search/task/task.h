#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>

#include "compiler/ops/op_args.h"
#include "compiler/target/target_facts.h"
#include "search/space/config_space.h"

// A tuning task: one schedule template, one set of operator arguments, one target. Tuning logs and
// ApplyHistoryBest find a task's records by its Key().
namespace tessel::search {

struct Task {
  std::string template_name;  // a registered template, e.g. "conv2d_nchwc.x86"
  ops::OpArgs args;           // a JSON object (compiler/ops/OPERATORS.md)
  target::Target target;      // e.g. llvm -mcpu=znver3 -fast-math-contract

  // "<template>|<args>|<target>", the args dumped compactly with keys sorted, e.g.
  //   conv2d_nchwc.x86|{"h":56,"ic":64,...}|llvm -mcpu=native
  // The key does not depend on the order the args' keys were written in; it does depend on how
  // numbers are written (56 and 56.0 differ), so writers keep integers integral.
  std::string Key() const;

  // {"template": ..., "args": {...}, "target": "<target string>"}
  nlohmann::json ToJson() const;
  // Reads ToJson's form; an error names the missing or ill-typed field ("task.args: ...") or the
  // target that does not parse ("task.target: target 'x': unknown kind ...").
  static absl::StatusOr<Task> FromJson(const nlohmann::json& json);

  bool operator==(const Task& other) const = default;
};

// The task's configuration space: its template's space for the args on a target with these facts.
// NotFound naming the template when none is registered under that name; the template's own error
// (naming the bad argument) when it rejects the args.
absl::StatusOr<ConfigSpace> Space(const Task& task, const target::TargetFacts& facts);

}  // namespace tessel::search
