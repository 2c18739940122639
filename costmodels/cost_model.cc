#include "costmodels/cost_model.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <map>
#include <utility>

#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::costmodels {
namespace {

std::map<std::string, CostModelFactory>& Registry() {
  static auto* registry = new std::map<std::string, CostModelFactory>();
  return *registry;
}

struct Family {
  std::string argument_name;
  CostModelFamilyFactory factory;
};

std::map<std::string, Family>& Families() {
  static auto* families = new std::map<std::string, Family>();
  return *families;
}

// The family of "<prefix>:<argument>" and the argument; nullptr when name has no registered
// prefix or an empty argument.
const Family* FamilyOf(const std::string& name, std::string* argument) {
  const size_t colon = name.find(':');
  if (colon == std::string::npos || colon + 1 == name.size()) return nullptr;
  auto it = Families().find(name.substr(0, colon));
  if (it == Families().end()) return nullptr;
  *argument = name.substr(colon + 1);
  return &it->second;
}

// What SamplesFromRecords needs of one task, computed once per task key.
struct TaskInfo {
  bool usable = false;  // template registered and args accepted
  search::ConfigSpace space;
  double flops = 0;
};

absl::StatusOr<TaskInfo> DescribeTask(const search::Task& task, const target::TargetFacts& facts) {
  TaskInfo info;
  absl::StatusOr<const ops::Template*> t = ops::FindTemplate(task.template_name);
  if (!t.ok()) return info;  // a log of another build: not ours to read
  // Flops belong to the logical operator, so any config's program has them; the fallback's is
  // the one every template can instantiate.
  absl::StatusOr<ops::Instantiated> inst = ops::InstantiateFallback(**t, task.args, facts);
  if (!inst.ok()) {
    return absl::Status(inst.status().code(),
                        absl::StrCat("task ", task.Key(), ": ", inst.status().message()));
  }
  info.usable = true;
  info.space = std::move(inst->space);
  info.flops = inst->program.flops;
  return info;
}

}  // namespace

absl::Status CostModel::FitTransfer(const std::vector<Sample>& /*samples*/) {
  return absl::UnimplementedError(
      absl::StrCat("cost model '", name(), "' does not support transfer learning"));
}

absl::StatusOr<std::vector<Sample>> SamplesFromRecords(const std::vector<search::Record>& records,
                                                       const target::TargetFacts& facts) {
  std::map<std::string, TaskInfo> tasks;
  std::vector<Sample> samples;
  for (const search::Record& record : records) {
    const std::string key = record.task.Key();
    auto it = tasks.find(key);
    if (it == tasks.end()) {
      TESSEL_ASSIGN_OR_RETURN(TaskInfo info, DescribeTask(record.task, facts));
      it = tasks.emplace(key, std::move(info)).first;
    }
    const TaskInfo& info = it->second;
    if (!info.usable) continue;
    absl::StatusOr<search::Config> config = info.space.FromJson(record.config);
    if (!config.ok()) continue;
    const double cost = search::MeanCost(record.result);
    Sample sample{record.task, *std::move(config), 0.0};
    if (record.result.error == search::ErrorKind::kNone && cost > 0 && cost < 1e300) {
      sample.throughput = info.flops / cost / 1e9;
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

void RegisterCostModel(const std::string& name, CostModelFactory factory) {
  TESSEL_CHECK(factory) << "cost model " << name << " has no factory";
  const bool inserted = Registry().emplace(name, std::move(factory)).second;
  TESSEL_CHECK(inserted) << "cost model " << name << " registered twice";
}

void RegisterCostModelFamily(const std::string& prefix, const std::string& argument_name,
                             CostModelFamilyFactory factory) {
  TESSEL_CHECK(factory) << "cost model family " << prefix << " has no factory";
  const bool inserted =
      Families().emplace(prefix, Family{argument_name, std::move(factory)}).second;
  TESSEL_CHECK(inserted) << "cost model family " << prefix << " registered twice";
}

bool IsCostModelName(const std::string& name) {
  std::string argument;
  return Registry().contains(name) || FamilyOf(name, &argument) != nullptr;
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeCostModel(const std::string& name,
                                                         const CostModelOptions& options) {
  std::string argument;
  if (const Family* family = FamilyOf(name, &argument)) return family->factory(argument, options);
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat("no cost model named '", name,
                                            "'; known: ", absl::StrJoin(CostModelNames(), ", ")));
  }
  return it->second(options);
}

std::vector<std::string> CostModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  for (const auto& [prefix, family] : Families()) {
    names.push_back(absl::StrCat(prefix, ":<", family.argument_name, ">"));
  }
  return names;
}

}  // namespace tessel::costmodels
