#include "experiments/config.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "compiler/support/status_macros.h"
#include "experiments/config_fields.h"
#include "workloads/table2.h"

namespace tessel::experiments {
namespace {

using fields::CheckKeys;
using fields::CheckKnown;
using fields::CheckName;
using fields::Context;
using fields::Fail;
using fields::Join;
using fields::KindName;
using fields::Line;
using fields::ReadBool;
using fields::ReadDouble;
using fields::ReadInt;
using fields::ReadString;
using fields::Require;
using fields::RequireList;
using fields::ToJson;

const std::vector<std::string> kTopKeys = {
    "kind",      "name",     "target",     "threads",   "model_threads", "trials",        "seeds",
    "workloads", "template", "strategies", "baselines", "measure",       "early_stopping"};
const std::vector<std::string> kWorkloadKeys = {"name", "template", "args"};
const std::vector<std::string> kStrategyKeys = {
    "name",      "cost_model", "explorer",  "explorer_params", "features",
    "plan_size", "epsilon",    "diversity", "transfer_from"};
const std::vector<std::string> kFeatures = {"itervar", "knob", "curve"};
const std::vector<std::string> kBaselines = {"onednn"};

absl::StatusOr<WorkloadSpec> ReadWorkload(const Context& ctx, const YAML::Node& node,
                                          const std::string& key, const KnownNames& known) {
  WorkloadSpec w;
  w.line = Line(node);
  // Bound once: assigning to a YAML::Node overwrites the node it refers to, it does not rebind.
  const YAML::Node name_node = node.IsMap() ? node["name"] : node;
  if (node.IsMap()) {
    TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, key, kWorkloadKeys));
    TESSEL_RETURN_IF_ERROR(Require(ctx, node, key, "name").status());
    TESSEL_ASSIGN_OR_RETURN(w.name, ReadString(ctx, name_node, Join(key, "name")));
    if (YAML::Node t = node["template"]; t.IsDefined()) {
      TESSEL_ASSIGN_OR_RETURN(w.template_name, ReadString(ctx, t, Join(key, "template")));
      TESSEL_RETURN_IF_ERROR(
          CheckKnown(ctx, t, Join(key, "template"), "template", w.template_name, known.templates));
    }
    if (YAML::Node a = node["args"]; a.IsDefined()) {
      if (!a.IsMap()) {
        return Fail(ctx, a, Join(key, "args"),
                    absl::StrCat("expected a map of operator arguments, got ", KindName(a)));
      }
      TESSEL_ASSIGN_OR_RETURN(w.args, ToJson(ctx, a, Join(key, "args")));
    }
  } else {
    TESSEL_ASSIGN_OR_RETURN(w.name, ReadString(ctx, node, key));
  }
  const std::string name_key = node.IsMap() ? Join(key, "name") : key;
  TESSEL_RETURN_IF_ERROR(CheckName(ctx, name_node, name_key, w.name));
  if (w.args.is_null()) {
    absl::StatusOr<workloads::Layer> layer = workloads::FindLayer(w.name);
    if (!layer.ok()) {
      return Fail(ctx, name_node, name_key,
                  absl::StrCat(layer.status().message(),
                               " (a workload of your own needs `args` and `template`)"));
    }
    w.args = workloads::Conv2dArgs(*layer);
    w.table2 = true;
  }
  return w;
}

absl::StatusOr<StrategySpec> ReadStrategy(const Context& ctx, const YAML::Node& node,
                                          const std::string& key, const KnownNames& known) {
  if (!node.IsMap()) {
    return Fail(ctx, node, key,
                absl::StrCat("expected a map {name, cost_model, explorer}, got ", KindName(node)));
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, key, kStrategyKeys));
  StrategySpec s;
  s.line = Line(node);
  TESSEL_ASSIGN_OR_RETURN(YAML::Node name, Require(ctx, node, key, "name"));
  TESSEL_ASSIGN_OR_RETURN(s.name, ReadString(ctx, name, Join(key, "name")));
  TESSEL_RETURN_IF_ERROR(CheckName(ctx, name, Join(key, "name"), s.name));
  TESSEL_ASSIGN_OR_RETURN(YAML::Node explorer, Require(ctx, node, key, "explorer"));
  TESSEL_ASSIGN_OR_RETURN(s.explorer, ReadString(ctx, explorer, Join(key, "explorer")));
  TESSEL_RETURN_IF_ERROR(
      CheckKnown(ctx, explorer, Join(key, "explorer"), "explorer", s.explorer, known.explorers));
  if (YAML::Node m = node["cost_model"]; m.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(s.cost_model, ReadString(ctx, m, Join(key, "cost_model")));
    TESSEL_RETURN_IF_ERROR(
        CheckKnown(ctx, m, Join(key, "cost_model"), "cost model", s.cost_model, known.cost_models));
  }
  if (YAML::Node p = node["explorer_params"]; p.IsDefined()) {
    if (!p.IsMap()) {
      return Fail(ctx, p, Join(key, "explorer_params"),
                  absl::StrCat("expected a map, got ", KindName(p)));
    }
    TESSEL_ASSIGN_OR_RETURN(s.explorer_params, ToJson(ctx, p, Join(key, "explorer_params")));
  }
  // The remaining keys steer the model-based loop only.
  for (const char* model_key : {"features", "plan_size", "epsilon", "diversity", "transfer_from"}) {
    if (node[model_key].IsDefined() && s.cost_model.empty()) {
      return Fail(ctx, node[model_key], Join(key, model_key),
                  "applies to strategies with a cost_model only");
    }
  }
  if (YAML::Node f = node["features"]; f.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(s.features, ReadString(ctx, f, Join(key, "features")));
    TESSEL_RETURN_IF_ERROR(
        CheckKnown(ctx, f, Join(key, "features"), "feature kind", s.features, kFeatures));
  }
  if (YAML::Node p = node["plan_size"]; p.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(s.plan_size, ReadInt(ctx, p, Join(key, "plan_size"), 1, 100000));
  }
  if (YAML::Node e = node["epsilon"]; e.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(s.epsilon, ReadDouble(ctx, e, Join(key, "epsilon"), 0, 1));
  }
  if (YAML::Node d = node["diversity"]; d.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(s.diversity, ReadBool(ctx, d, Join(key, "diversity")));
  }
  if (YAML::Node t = node["transfer_from"]; t.IsDefined()) {
    const std::string tkey = Join(key, "transfer_from");
    if (t.IsSequence()) {
      for (size_t i = 0; i < t.size(); ++i) {
        TESSEL_ASSIGN_OR_RETURN(std::string path,
                                ReadString(ctx, t[i], absl::StrCat(tkey, "[", i, "]")));
        s.transfer_from.push_back(std::move(path));
      }
    } else {
      TESSEL_ASSIGN_OR_RETURN(std::string path, ReadString(ctx, t, tkey));
      s.transfer_from.push_back(std::move(path));
    }
    if (s.transfer_from.empty()) return Fail(ctx, t, tkey, "an empty list; name at least one log");
  }
  return s;
}

absl::StatusOr<ExperimentConfig> ReadConfig(const Context& ctx, const YAML::Node& doc,
                                            const KnownNames& known) {
  if (!doc.IsMap()) {
    return Fail(ctx, std::max(1, Line(doc)), "(top level)",
                "a config is a YAML map of keys (see experiments/README.md)");
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, doc, "", kTopKeys));
  if (YAML::Node kind = doc["kind"]; kind.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(std::string value, ReadString(ctx, kind, "kind"));
    TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, kind, "kind", "experiment kind", value, {"tuning"}));
  }
  ExperimentConfig c;

  TESSEL_RETURN_IF_ERROR(fields::ReadCommonKeys(ctx, doc, c.name, c.target, c.threads));
  if (YAML::Node n = doc["model_threads"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.model_threads, ReadInt(ctx, n, "model_threads", 1, 1024));
  }
  TESSEL_ASSIGN_OR_RETURN(YAML::Node trials, Require(ctx, doc, "", "trials"));
  TESSEL_ASSIGN_OR_RETURN(c.trials, ReadInt(ctx, trials, "trials", 1, 1000000));
  if (YAML::Node n = doc["early_stopping"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.early_stopping, ReadInt(ctx, n, "early_stopping", 0, 1000000));
  }

  if (YAML::Node seeds = doc["seeds"]; seeds.IsDefined()) {
    TESSEL_RETURN_IF_ERROR(RequireList(ctx, seeds, "seeds").status());
    c.seeds.clear();
    for (size_t i = 0; i < seeds.size(); ++i) {
      const std::string key = absl::StrCat("seeds[", i, "]");
      TESSEL_ASSIGN_OR_RETURN(int64_t seed,
                              ReadInt(ctx, seeds[i], key, 0, std::numeric_limits<int64_t>::max()));
      if (std::find(c.seeds.begin(), c.seeds.end(), static_cast<uint64_t>(seed)) != c.seeds.end()) {
        return Fail(ctx, seeds[i], key, absl::StrCat("seed ", seed, " is listed twice"));
      }
      c.seeds.push_back(static_cast<uint64_t>(seed));
    }
  }

  if (YAML::Node t = doc["template"]; t.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.template_name, ReadString(ctx, t, "template"));
    TESSEL_RETURN_IF_ERROR(
        CheckKnown(ctx, t, "template", "template", c.template_name, known.templates));
  }

  TESSEL_ASSIGN_OR_RETURN(YAML::Node workloads, Require(ctx, doc, "", "workloads"));
  TESSEL_RETURN_IF_ERROR(RequireList(ctx, workloads, "workloads").status());
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string key = absl::StrCat("workloads[", i, "]");
    TESSEL_ASSIGN_OR_RETURN(WorkloadSpec w, ReadWorkload(ctx, workloads[i], key, known));
    for (const WorkloadSpec& other : c.workloads) {
      if (other.name == w.name) {
        return Fail(ctx, workloads[i], key,
                    absl::StrCat("workload '", w.name, "' is listed twice"));
      }
    }
    if (!w.table2 && w.template_name.empty() && c.template_name.empty()) {
      return Fail(ctx, workloads[i], Join(key, "template"),
                  "missing: a workload given by args needs a template (here or at the top level)");
    }
    c.workloads.push_back(std::move(w));
  }

  TESSEL_ASSIGN_OR_RETURN(YAML::Node strategies, Require(ctx, doc, "", "strategies"));
  TESSEL_RETURN_IF_ERROR(RequireList(ctx, strategies, "strategies").status());
  for (size_t i = 0; i < strategies.size(); ++i) {
    const std::string key = absl::StrCat("strategies[", i, "]");
    TESSEL_ASSIGN_OR_RETURN(StrategySpec s, ReadStrategy(ctx, strategies[i], key, known));
    for (const StrategySpec& other : c.strategies) {
      if (other.name == s.name) {
        return Fail(ctx, strategies[i]["name"], Join(key, "name"),
                    absl::StrCat("strategy '", s.name, "' is listed twice"));
      }
    }
    c.strategies.push_back(std::move(s));
  }

  if (YAML::Node b = doc["baselines"]; b.IsDefined()) {
    if (!b.IsSequence()) {
      return Fail(ctx, b, "baselines", absl::StrCat("expected a list, got ", KindName(b)));
    }
    for (size_t i = 0; i < b.size(); ++i) {
      const std::string key = absl::StrCat("baselines[", i, "]");
      TESSEL_ASSIGN_OR_RETURN(std::string baseline, ReadString(ctx, b[i], key));
      TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, b[i], key, "baseline", baseline, kBaselines));
      if (std::find(c.baselines.begin(), c.baselines.end(), baseline) != c.baselines.end()) {
        return Fail(ctx, b[i], key, absl::StrCat("'", baseline, "' is listed twice"));
      }
      c.baselines.push_back(baseline);
    }
  }

  if (YAML::Node m = doc["measure"]; m.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.measure, fields::ReadMeasure(ctx, m, "measure"));
  }
  return c;
}

}  // namespace

absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& text,
                                                       const std::string& path,
                                                       const KnownNames& known) {
  return fields::ParseYamlConfig<ExperimentConfig>(
      text, path,
      [&](const Context& ctx, const YAML::Node& doc) { return ReadConfig(ctx, doc, known); });
}

absl::StatusOr<ExperimentConfig> LoadExperimentConfig(const std::string& path,
                                                      const KnownNames& known) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read the config '", path, "'"));
  std::stringstream text;
  text << file.rdbuf();
  return ParseExperimentConfig(text.str(), path, known);
}

}  // namespace tessel::experiments
