#include "experiments/models_config.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>

#include "compiler/support/status_macros.h"
#include "experiments/config_fields.h"

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

const std::vector<std::string> kTopKeys = {
    "kind",          "name",  "target",   "threads",  "batch",  "repeat",   "warmup",
    "min_repeat_ms", "chart", "networks", "variants", "tuning", "tolerance"};
const std::vector<std::string> kVariantKeys = {"name", "baseline", "optimize_graph", "fuse"};
const std::vector<std::string> kTuningKeys = {"trials",          "cost_model",     "explorer",
                                              "explorer_params", "early_stopping", "seed",
                                              "transfer",        "model_threads",  "measure"};
const std::vector<std::string> kToleranceKeys = {"atol", "rtol"};
const std::vector<std::string> kCharts = {"ms", "speedup"};
const std::vector<std::string> kBaselines = {"libtorch"};

absl::StatusOr<VariantSpec> ReadVariant(const Context& ctx, const YAML::Node& node,
                                        const std::string& key) {
  if (!node.IsMap()) {
    return Fail(ctx, node, key,
                absl::StrCat("expected a map {name, baseline | optimize_graph, fuse}, got ",
                             KindName(node)));
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, key, kVariantKeys));
  VariantSpec v;
  v.line = Line(node);
  TESSEL_ASSIGN_OR_RETURN(YAML::Node name, Require(ctx, node, key, "name"));
  TESSEL_ASSIGN_OR_RETURN(v.name, ReadString(ctx, name, Join(key, "name")));
  TESSEL_RETURN_IF_ERROR(CheckName(ctx, name, Join(key, "name"), v.name));
  if (YAML::Node b = node["baseline"]; b.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(std::string baseline, ReadString(ctx, b, Join(key, "baseline")));
    TESSEL_RETURN_IF_ERROR(
        CheckKnown(ctx, b, Join(key, "baseline"), "baseline", baseline, kBaselines));
    v.libtorch = true;
    for (const char* tessel_key : {"optimize_graph", "fuse"}) {
      if (node[tessel_key].IsDefined()) {
        return Fail(ctx, node[tessel_key], Join(key, tessel_key),
                    "applies to Tessel variants only, not to a baseline");
      }
    }
    return v;
  }
  if (YAML::Node o = node["optimize_graph"]; o.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(v.optimize_graph, ReadBool(ctx, o, Join(key, "optimize_graph")));
  }
  if (YAML::Node f = node["fuse"]; f.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(v.fuse, ReadBool(ctx, f, Join(key, "fuse")));
    if (!v.optimize_graph) {
      return Fail(ctx, f, Join(key, "fuse"),
                  "has no effect with optimize_graph: false (nothing fuses without the graph "
                  "optimizations)");
    }
  }
  if (!v.optimize_graph) v.fuse = false;
  return v;
}

absl::StatusOr<ModelsTuningSpec> ReadTuning(const Context& ctx, const YAML::Node& node,
                                            const KnownNames& known) {
  const std::string key = "tuning";
  if (!node.IsMap()) {
    return Fail(ctx, node, key, absl::StrCat("expected a map, got ", KindName(node)));
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, key, kTuningKeys));
  ModelsTuningSpec t;
  t.line = Line(node);
  TESSEL_ASSIGN_OR_RETURN(YAML::Node trials, Require(ctx, node, key, "trials"));
  TESSEL_ASSIGN_OR_RETURN(t.trials, ReadInt(ctx, trials, Join(key, "trials"), 1, 1000000));
  // Defaults: xgb + sa. An explorer given alone is black-box unless a cost_model is given too.
  const YAML::Node explorer = node["explorer"];
  const YAML::Node model = node["cost_model"];
  if (explorer.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.explorer, ReadString(ctx, explorer, Join(key, "explorer")));
    TESSEL_RETURN_IF_ERROR(
        CheckKnown(ctx, explorer, Join(key, "explorer"), "explorer", t.explorer, known.explorers));
    t.cost_model = "";
  }
  if (model.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.cost_model, ReadString(ctx, model, Join(key, "cost_model")));
    TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, model, Join(key, "cost_model"), "cost model",
                                      t.cost_model, known.cost_models));
  }
  if (YAML::Node p = node["explorer_params"]; p.IsDefined()) {
    if (!p.IsMap()) {
      return Fail(ctx, p, Join(key, "explorer_params"),
                  absl::StrCat("expected a map, got ", KindName(p)));
    }
    TESSEL_ASSIGN_OR_RETURN(t.explorer_params,
                            fields::ToJson(ctx, p, Join(key, "explorer_params")));
  }
  if (YAML::Node n = node["early_stopping"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.early_stopping,
                            ReadInt(ctx, n, Join(key, "early_stopping"), 0, 1000000));
  }
  if (YAML::Node n = node["seed"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(
        int64_t seed, ReadInt(ctx, n, Join(key, "seed"), 0, std::numeric_limits<int64_t>::max()));
    t.seed = static_cast<uint64_t>(seed);
  }
  if (YAML::Node n = node["transfer"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.transfer, ReadBool(ctx, n, Join(key, "transfer")));
  }
  if (YAML::Node n = node["model_threads"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.model_threads, ReadInt(ctx, n, Join(key, "model_threads"), 1, 1024));
  }
  if (YAML::Node m = node["measure"]; m.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(t.measure, fields::ReadMeasure(ctx, m, Join(key, "measure")));
  }
  return t;
}

absl::StatusOr<ModelsConfig> ReadConfig(const Context& ctx, const YAML::Node& doc,
                                        const KnownNames& known) {
  if (!doc.IsMap()) {
    return Fail(ctx, std::max(1, Line(doc)), "(top level)",
                "a config is a YAML map of keys (see experiments/README.md)");
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, doc, "", kTopKeys));
  TESSEL_ASSIGN_OR_RETURN(YAML::Node kind, Require(ctx, doc, "", "kind"));
  TESSEL_ASSIGN_OR_RETURN(std::string kind_name, ReadString(ctx, kind, "kind"));
  TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, kind, "kind", "experiment kind", kind_name, {"models"}));
  ModelsConfig c;

  TESSEL_RETURN_IF_ERROR(fields::ReadCommonKeys(ctx, doc, c.name, c.target, c.threads));
  if (YAML::Node n = doc["batch"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.batch, ReadInt(ctx, n, "batch", 1, 4096));
  }
  if (YAML::Node n = doc["repeat"]; n.IsDefined()) {
    // A median of fewer than five repeats says little about a shared machine.
    TESSEL_ASSIGN_OR_RETURN(c.repeat, ReadInt(ctx, n, "repeat", 5, 100000));
  }
  if (YAML::Node n = doc["warmup"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.warmup, ReadInt(ctx, n, "warmup", 0, 100000));
  }
  if (YAML::Node n = doc["min_repeat_ms"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.min_repeat_ms, ReadDouble(ctx, n, "min_repeat_ms", 0, 1e5));
  }
  if (YAML::Node n = doc["chart"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.chart, ReadString(ctx, n, "chart"));
    TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, n, "chart", "chart", c.chart, kCharts));
  }
  if (YAML::Node t = doc["tolerance"]; t.IsDefined()) {
    if (!t.IsMap()) {
      return Fail(ctx, t, "tolerance",
                  absl::StrCat("expected a map {atol, rtol}, got ", KindName(t)));
    }
    TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, t, "tolerance", kToleranceKeys));
    if (YAML::Node n = t["atol"]; n.IsDefined()) {
      TESSEL_ASSIGN_OR_RETURN(c.atol, ReadDouble(ctx, n, "tolerance.atol", 0, 1e9));
    }
    if (YAML::Node n = t["rtol"]; n.IsDefined()) {
      TESSEL_ASSIGN_OR_RETURN(c.rtol, ReadDouble(ctx, n, "tolerance.rtol", 0, 1e9));
    }
  }

  TESSEL_ASSIGN_OR_RETURN(YAML::Node variants, Require(ctx, doc, "", "variants"));
  TESSEL_RETURN_IF_ERROR(RequireList(ctx, variants, "variants").status());
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string key = absl::StrCat("variants[", i, "]");
    TESSEL_ASSIGN_OR_RETURN(VariantSpec v, ReadVariant(ctx, variants[i], key));
    for (const VariantSpec& other : c.variants) {
      if (other.name == v.name) {
        return Fail(ctx, variants[i]["name"], Join(key, "name"),
                    absl::StrCat("variant '", v.name, "' is listed twice"));
      }
    }
    c.variants.push_back(std::move(v));
  }
  const auto torch = std::find_if(c.variants.begin(), c.variants.end(),
                                  [](const VariantSpec& v) { return v.libtorch; });

  TESSEL_ASSIGN_OR_RETURN(YAML::Node networks, Require(ctx, doc, "", "networks"));
  TESSEL_RETURN_IF_ERROR(RequireList(ctx, networks, "networks").status());
  for (size_t i = 0; i < networks.size(); ++i) {
    const std::string key = absl::StrCat("networks[", i, "]");
    NetworkSpec n;
    n.line = Line(networks[i]);
    TESSEL_ASSIGN_OR_RETURN(n.name, ReadString(ctx, networks[i], key));
    TESSEL_RETURN_IF_ERROR(CheckKnown(ctx, networks[i], key, "network", n.name, known.networks));
    for (const NetworkSpec& other : c.networks) {
      if (other.name == n.name) {
        return Fail(ctx, networks[i], key, absl::StrCat("network '", n.name, "' is listed twice"));
      }
    }
    if (torch != c.variants.end() &&
        std::find(known.torch_networks.begin(), known.torch_networks.end(), n.name) ==
            known.torch_networks.end()) {
      return Fail(ctx, networks[i], key,
                  absl::StrCat("'", n.name, "' has no libtorch version (variant '", torch->name,
                               "' runs one); networks with one: ",
                               absl::StrJoin(known.torch_networks, ", ")));
    }
    c.networks.push_back(std::move(n));
  }

  if (YAML::Node t = doc["tuning"]; t.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(c.tuning, ReadTuning(ctx, t, known));
    if (std::all_of(c.variants.begin(), c.variants.end(),
                    [](const VariantSpec& v) { return v.libtorch; })) {
      return Fail(ctx, t, "tuning", "no Tessel variant would use the tuned configs");
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<ModelsConfig> ParseModelsConfig(const std::string& text, const std::string& path,
                                               const KnownNames& known) {
  return fields::ParseYamlConfig<ModelsConfig>(
      text, path,
      [&](const Context& ctx, const YAML::Node& doc) { return ReadConfig(ctx, doc, known); });
}

}  // namespace tessel::experiments
