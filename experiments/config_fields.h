#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/target/target.h"
#include "experiments/config.h"

// The YAML readers both kinds of experiment config share (config.cc: tuning, models_config.cc:
// models). Each one checks a node's shape and value and returns the config style of error,
// InvalidArgument "<path>:<line>: <key>: <problem>", where key is a path into the document
// ("variants[1].fuse") and line is 1-based. Private to experiments/.
namespace tessel::experiments::fields {

// Where a config is read from, for messages.
struct Context {
  std::string path;
};

// The node's 1-based line; 0 when yaml-cpp knows none.
int Line(const YAML::Node& node);

absl::Status Fail(const Context& ctx, int line, const std::string& key, const std::string& problem);
absl::Status Fail(const Context& ctx, const YAML::Node& node, const std::string& key,
                  const std::string& problem);

// The same style of error found after parsing (by a runner): "<path>:<line>: <key>: <problem>",
// "<path>: <key>: <problem>" when line is 0; path "" reads "<config>".
absl::Status ConfigError(const std::string& path, int line, const std::string& key,
                         const std::string& problem);

// "prefix.key", or "key" for an empty prefix.
std::string Join(const std::string& prefix, const std::string& key);

// "a map", "a list", "nothing" or the quoted scalar: what was found instead.
std::string KindName(const YAML::Node& node);

// Every key of `map` is one of `allowed`, and none is given twice.
absl::Status CheckKeys(const Context& ctx, const YAML::Node& map, const std::string& prefix,
                       const std::vector<std::string>& allowed);

// map[key], or "missing (required)" at the map's line.
absl::StatusOr<YAML::Node> Require(const Context& ctx, const YAML::Node& map,
                                   const std::string& prefix, const std::string& key);

absl::StatusOr<std::string> ReadString(const Context& ctx, const YAML::Node& node,
                                       const std::string& key);
absl::StatusOr<int64_t> ReadInt(const Context& ctx, const YAML::Node& node, const std::string& key,
                                int64_t min_value, int64_t max_value);
absl::StatusOr<double> ReadDouble(const Context& ctx, const YAML::Node& node,
                                  const std::string& key, double min_value, double max_value);
absl::StatusOr<bool> ReadBool(const Context& ctx, const YAML::Node& node, const std::string& key);

// A non-empty list.
absl::StatusOr<YAML::Node> RequireList(const Context& ctx, const YAML::Node& node,
                                       const std::string& key);

// Names become file names and CSV cells: letters, digits and . _ + - only, not starting with '.'.
absl::Status CheckName(const Context& ctx, const YAML::Node& node, const std::string& key,
                       const std::string& name);

// value is one of `known` ("unknown <what> '<value>'; known: ...").
absl::Status CheckKnown(const Context& ctx, const YAML::Node& node, const std::string& key,
                        const std::string& what, const std::string& value,
                        const std::vector<std::string>& known);

// YAML -> JSON for operator arguments and explorer parameters: quoted scalars stay strings,
// plain ones become integers, numbers, booleans or null when they read as such.
absl::StatusOr<nlohmann::json> ToJson(const Context& ctx, const YAML::Node& node,
                                      const std::string& key);

// The `measure:` map of how tuning measures candidates (config.h MeasureSpec); `key` is where it
// is written ("measure", "tuning.measure").
absl::StatusOr<MeasureSpec> ReadMeasure(const Context& ctx, const YAML::Node& node,
                                        const std::string& key);

// The document `text` holds; malformed YAML is "<path>:<line>: not valid YAML: ...".
absl::StatusOr<YAML::Node> LoadYaml(const Context& ctx, const std::string& text);

// yaml-cpp throws on shapes the readers did not foresee (e.g. indexing a scalar): the same
// style of error, at the exception's line.
absl::Status YamlError(const Context& ctx, const YAML::Exception& e);

// A config of type C (with source_path and source_text) from YAML `text`: parsed, then read by
// `read(ctx, doc)`; a YAML error is one naming its line. `path` is only used in messages.
template <typename C, typename Read>
absl::StatusOr<C> ParseYamlConfig(const std::string& text, const std::string& path, Read read) {
  const Context ctx{path.empty() ? "<config>" : path};
  absl::StatusOr<YAML::Node> doc = LoadYaml(ctx, text);
  if (!doc.ok()) return doc.status();
  absl::StatusOr<C> config;
  try {
    config = read(ctx, *doc);
  } catch (const YAML::Exception& e) {
    return YamlError(ctx, e);
  }
  if (!config.ok()) return config.status();
  config->source_path = path;
  config->source_text = text;
  return config;
}

// The keys every kind of config has: `name` (required, CheckName), `target` and `threads`
// (1..1024), each left as it is when absent.
absl::Status ReadCommonKeys(const Context& ctx, const YAML::Node& doc, std::string& name,
                            target::Target& target, int& threads);

}  // namespace tessel::experiments::fields
