#include "experiments/config.h"

#include <absl/status/status.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "compiler/support/status_macros.h"
#include "workloads/table2.h"

namespace tessel::experiments {
namespace {

// Where a config is read from, for messages.
struct Context {
  std::string path;
};

int Line(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

absl::Status Fail(const Context& ctx, int line, const std::string& key,
                  const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.path, ":", line, ": ", key, ": ", problem));
}

absl::Status Fail(const Context& ctx, const YAML::Node& node, const std::string& key,
                  const std::string& problem) {
  return Fail(ctx, Line(node), key, problem);
}

std::string Join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : absl::StrCat(prefix, ".", key);
}

std::string KindName(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return absl::StrCat("'", node.Scalar(), "'");
}

// Every key of `map` is one of `allowed`.
absl::Status CheckKeys(const Context& ctx, const YAML::Node& map, const std::string& prefix,
                       const std::vector<std::string>& allowed) {
  std::set<std::string> seen;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) {
      return Fail(ctx, entry.first, prefix.empty() ? "(top level)" : prefix,
                  "keys must be plain names");
    }
    const std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Fail(ctx, entry.first, Join(prefix, key),
                  absl::StrCat("unknown key; known keys: ", absl::StrJoin(allowed, ", ")));
    }
    if (!seen.insert(key).second) return Fail(ctx, entry.first, Join(prefix, key), "given twice");
  }
  return absl::OkStatus();
}

absl::StatusOr<YAML::Node> Require(const Context& ctx, const YAML::Node& map,
                                   const std::string& prefix, const std::string& key) {
  YAML::Node node = map[key];
  if (!node.IsDefined()) return Fail(ctx, map, Join(prefix, key), "missing (required)");
  return node;
}

absl::StatusOr<std::string> ReadString(const Context& ctx, const YAML::Node& node,
                                       const std::string& key) {
  if (!node.IsScalar() || node.Scalar().empty()) {
    return Fail(ctx, node, key, absl::StrCat("expected a non-empty string, got ", KindName(node)));
  }
  return node.Scalar();
}

absl::StatusOr<int64_t> ReadInt(const Context& ctx, const YAML::Node& node, const std::string& key,
                                int64_t min_value, int64_t max_value) {
  int64_t value = 0;
  if (!node.IsScalar() || !absl::SimpleAtoi(node.Scalar(), &value)) {
    return Fail(ctx, node, key, absl::StrCat("expected an integer, got ", KindName(node)));
  }
  if (value < min_value || value > max_value) {
    return Fail(ctx, node, key,
                absl::StrCat("must be between ", min_value, " and ", max_value, ", got ", value));
  }
  return value;
}

absl::StatusOr<double> ReadDouble(const Context& ctx, const YAML::Node& node,
                                  const std::string& key, double min_value, double max_value) {
  double value = 0;
  if (!node.IsScalar() || !absl::SimpleAtod(node.Scalar(), &value) || !std::isfinite(value)) {
    return Fail(ctx, node, key, absl::StrCat("expected a number, got ", KindName(node)));
  }
  if (value < min_value || value > max_value) {
    return Fail(
        ctx, node, key,
        absl::StrCat("must be between ", min_value, " and ", max_value, ", got ", node.Scalar()));
  }
  return value;
}

absl::StatusOr<bool> ReadBool(const Context& ctx, const YAML::Node& node, const std::string& key) {
  if (node.IsScalar()) {
    if (node.Scalar() == "true") return true;
    if (node.Scalar() == "false") return false;
  }
  return Fail(ctx, node, key, absl::StrCat("expected true or false, got ", KindName(node)));
}

absl::StatusOr<YAML::Node> RequireList(const Context& ctx, const YAML::Node& node,
                                       const std::string& key) {
  if (!node.IsSequence()) {
    return Fail(ctx, node, key, absl::StrCat("expected a list, got ", KindName(node)));
  }
  if (node.size() == 0) return Fail(ctx, node, key, "must not be empty");
  return node;
}

// Names become file names and CSV cells: letters, digits and . _ + - only.
absl::Status CheckName(const Context& ctx, const YAML::Node& node, const std::string& key,
                       const std::string& name) {
  const bool ok =
      !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
               c == '-';
      });
  if (ok) return absl::OkStatus();
  return Fail(ctx, node, key,
              absl::StrCat("'", name,
                           "' is not a usable name (letters, digits, '.', '_', '+', '-'; not "
                           "starting with '.')"));
}

absl::Status CheckKnown(const Context& ctx, const YAML::Node& node, const std::string& key,
                        const std::string& what, const std::string& value,
                        const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), value) != known.end()) return absl::OkStatus();
  return Fail(ctx, node, key,
              absl::StrCat("unknown ", what, " '", value, "'; known: ",
                           known.empty() ? "(none linked)" : absl::StrJoin(known, ", ")));
}

// YAML -> JSON for operator arguments and explorer parameters: quoted scalars stay strings,
// plain ones become integers, numbers, booleans or null when they read as such.
absl::StatusOr<nlohmann::json> ToJson(const Context& ctx, const YAML::Node& node,
                                      const std::string& key) {
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) return Fail(ctx, entry.first, key, "keys must be plain names");
      const std::string name = entry.first.Scalar();
      TESSEL_ASSIGN_OR_RETURN(object[name], ToJson(ctx, entry.second, Join(key, name)));
    }
    return object;
  }
  if (node.IsSequence()) {
    nlohmann::json array = nlohmann::json::array();
    for (size_t i = 0; i < node.size(); ++i) {
      TESSEL_ASSIGN_OR_RETURN(nlohmann::json item,
                              ToJson(ctx, node[i], absl::StrCat(key, "[", i, "]")));
      array.push_back(std::move(item));
    }
    return array;
  }
  if (node.IsNull()) return nlohmann::json(nullptr);
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return nlohmann::json(text);  // quoted
  int64_t i = 0;
  if (absl::SimpleAtoi(text, &i)) return nlohmann::json(i);
  double d = 0;
  if (absl::SimpleAtod(text, &d) && std::isfinite(d)) return nlohmann::json(d);
  if (text == "true") return nlohmann::json(true);
  if (text == "false") return nlohmann::json(false);
  return nlohmann::json(text);
}

const std::vector<std::string> kTopKeys = {
    "name",      "target",   "threads",    "model_threads", "trials",  "seeds",
    "workloads", "template", "strategies", "baselines",     "measure", "early_stopping"};
const std::vector<std::string> kWorkloadKeys = {"name", "template", "args"};
const std::vector<std::string> kStrategyKeys = {
    "name",     "cost_model", "explorer", "explorer_params",
    "features", "plan_size",  "epsilon",  "diversity"};
const std::vector<std::string> kMeasureKeys = {
    "repeat",        "number",      "min_repeat_ms",     "timeout_seconds",
    "build_workers", "flush_cache", "check_correctness", "atol",
    "rtol"};
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
  for (const char* model_key : {"features", "plan_size", "epsilon", "diversity"}) {
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
  return s;
}

absl::StatusOr<MeasureSpec> ReadMeasure(const Context& ctx, const YAML::Node& node) {
  if (!node.IsMap()) {
    return Fail(ctx, node, "measure", absl::StrCat("expected a map, got ", KindName(node)));
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, "measure", kMeasureKeys));
  MeasureSpec m;
  if (YAML::Node n = node["repeat"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.repeat, ReadInt(ctx, n, "measure.repeat", 1, 1000));
  }
  if (YAML::Node n = node["number"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.number, ReadInt(ctx, n, "measure.number", 1, 1000000));
  }
  if (YAML::Node n = node["min_repeat_ms"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.min_repeat_ms, ReadDouble(ctx, n, "measure.min_repeat_ms", 0, 1e5));
  }
  if (YAML::Node n = node["timeout_seconds"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.timeout_seconds,
                            ReadDouble(ctx, n, "measure.timeout_seconds", 0.001, 86400));
  }
  if (YAML::Node n = node["build_workers"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.build_workers, ReadInt(ctx, n, "measure.build_workers", 1, 256));
  }
  if (YAML::Node n = node["flush_cache"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.flush_cache, ReadBool(ctx, n, "measure.flush_cache"));
  }
  if (YAML::Node n = node["check_correctness"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.check_correctness, ReadBool(ctx, n, "measure.check_correctness"));
  }
  if (YAML::Node n = node["atol"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.atol, ReadDouble(ctx, n, "measure.atol", 0, 1e9));
  }
  if (YAML::Node n = node["rtol"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.rtol, ReadDouble(ctx, n, "measure.rtol", 0, 1e9));
  }
  return m;
}

absl::StatusOr<ExperimentConfig> ReadConfig(const Context& ctx, const YAML::Node& doc,
                                            const KnownNames& known) {
  if (!doc.IsMap()) {
    return Fail(ctx, std::max(1, Line(doc)), "(top level)",
                "a config is a YAML map of keys (see experiments/README.md)");
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, doc, "", kTopKeys));
  ExperimentConfig c;

  TESSEL_ASSIGN_OR_RETURN(YAML::Node name, Require(ctx, doc, "", "name"));
  TESSEL_ASSIGN_OR_RETURN(c.name, ReadString(ctx, name, "name"));
  TESSEL_RETURN_IF_ERROR(CheckName(ctx, name, "name", c.name));
  if (YAML::Node n = doc["target"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.target, ReadString(ctx, n, "target"));
  }
  if (YAML::Node n = doc["threads"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.threads, ReadInt(ctx, n, "threads", 1, 1024));
  }
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
    TESSEL_ASSIGN_OR_RETURN(c.measure, ReadMeasure(ctx, m));
  }
  return c;
}

}  // namespace

absl::StatusOr<ExperimentConfig> ParseExperimentConfig(const std::string& text,
                                                       const std::string& path,
                                                       const KnownNames& known) {
  const Context ctx{path.empty() ? "<config>" : path};
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.path, ":", e.mark.is_null() ? 0 : e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  absl::StatusOr<ExperimentConfig> config;
  try {
    config = ReadConfig(ctx, doc, known);
  } catch (const YAML::Exception& e) {
    // yaml-cpp throws on shapes the checks above did not foresee (e.g. indexing a scalar).
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.path, ":", e.mark.is_null() ? 0 : e.mark.line + 1, ": ", e.msg));
  }
  if (!config.ok()) return config.status();
  config->source_path = path;
  config->source_text = text;
  return config;
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
