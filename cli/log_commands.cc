#include "cli/log_commands.h"

#include <absl/container/btree_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <cmath>
#include <map>
#include <vector>

#include "compiler/ops/template.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"
#include "search/records/apply_history_best.h"
#include "search/records/log.h"

namespace tessel::cli {
namespace {

struct TaskSummary {
  search::Task task;
  int trials = 0;
  std::map<std::string, int> errors;  // by kind name
  const search::Record* best = nullptr;
};

// The operations of the task's program for GFLOPS; 0 when its template is not in this build.
double TaskFlops(const search::Task& task) {
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  if (!facts.ok() || !t.ok()) return 0;
  absl::StatusOr<ops::Instantiated> program = ops::InstantiateFallback(**t, task.args, *facts);
  return program.ok() ? program->program.flops : 0;
}

absl::Status Summary(const std::string& path, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records, search::ReadLog(path));
  absl::btree_map<std::string, TaskSummary> tasks;  // by key, so the output order is stable
  for (const search::Record& r : records) {
    TaskSummary& s = tasks[r.task.Key()];
    s.task = r.task;
    ++s.trials;
    if (r.result.error != search::ErrorKind::kNone) {
      ++s.errors[search::ErrorKindName(r.result.error)];
    } else if (s.best == nullptr || search::MeanCost(r.result) < search::MeanCost(s.best->result)) {
      s.best = &r;
    }
  }
  out << path << ": " << records.size() << " records, " << tasks.size() << " tasks\n";
  for (const auto& [key, s] : tasks) {
    out << "\n"
        << s.task.template_name << " " << s.task.args.dump() << " " << s.task.target << "\n";
    int failed = 0;
    std::string kinds;
    for (const auto& [kind, n] : s.errors) {
      failed += n;
      absl::StrAppend(&kinds, kinds.empty() ? "" : ", ", kind, " ", n);
    }
    out << absl::StrFormat("  trials %d, failed %d%s\n", s.trials, failed,
                           kinds.empty() ? "" : absl::StrCat(" (", kinds, ")"));
    if (s.best == nullptr) {
      out << "  no successful measurement\n";
      continue;
    }
    double cost = search::MeanCost(s.best->result);
    double flops = TaskFlops(s.task);
    out << absl::StrFormat("  best %.4f ms", cost * 1e3);
    if (flops > 0) out << absl::StrFormat(", %.2f GFLOPS", flops / cost / 1e9);
    out << ", config " << s.best->config_index << " " << s.best->config["knobs"].dump() << "\n";
  }
  return absl::OkStatus();
}

absl::Status Best(const std::string& path, std::ostream& out) {
  TESSEL_ASSIGN_OR_RETURN(std::vector<search::Record> records, search::ReadLog(path));
  search::ApplyHistoryBest best(records);
  absl::btree_map<std::string, bool> keys;
  for (const search::Record& r : records) keys[r.task.Key()] = true;
  for (const auto& [key, unused] : keys) {
    std::optional<search::Record> record = best.Best(key);
    if (record) out << search::ToJson(*record).dump() << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LogCommand(std::span<const std::string> args, std::ostream& out) {
  if (args.size() != 2 || (args[0] != "best" && args[0] != "summary"))
    return absl::InvalidArgumentError("usage: tessel log best LOG | tessel log summary LOG");
  return args[0] == "best" ? Best(args[1], out) : Summary(args[1], out);
}

}  // namespace tessel::cli
