#include "experiments/config_fields.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "compiler/support/status_macros.h"

namespace tessel::experiments::fields {
namespace {

const std::vector<std::string> kMeasureKeys = {
    "repeat",        "number",      "min_repeat_ms",     "timeout_seconds",
    "build_workers", "flush_cache", "check_correctness", "atol",
    "rtol"};

}  // namespace

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

absl::Status ConfigError(const std::string& path, int line, const std::string& key,
                         const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat(path.empty() ? "<config>" : path,
                                                 line > 0 ? absl::StrCat(":", line) : "", ": ", key,
                                                 ": ", problem));
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
  // A family "<prefix>:<ARGUMENT>" (cost models written in Python: py:<MODULE>) takes any
  // non-empty argument after its prefix.
  for (const std::string& k : known) {
    const size_t open = k.find(":<");
    if (open != std::string::npos && k.back() == '>' && value.size() > open + 1 &&
        value.compare(0, open + 1, k, 0, open + 1) == 0) {
      return absl::OkStatus();
    }
  }
  return Fail(ctx, node, key,
              absl::StrCat("unknown ", what, " '", value, "'; known: ",
                           known.empty() ? "(none linked)" : absl::StrJoin(known, ", ")));
}

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

absl::StatusOr<MeasureSpec> ReadMeasure(const Context& ctx, const YAML::Node& node,
                                        const std::string& key) {
  if (!node.IsMap()) {
    return Fail(ctx, node, key, absl::StrCat("expected a map, got ", KindName(node)));
  }
  TESSEL_RETURN_IF_ERROR(CheckKeys(ctx, node, key, kMeasureKeys));
  MeasureSpec m;
  if (YAML::Node n = node["repeat"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.repeat, ReadInt(ctx, n, Join(key, "repeat"), 1, 1000));
  }
  if (YAML::Node n = node["number"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.number, ReadInt(ctx, n, Join(key, "number"), 1, 1000000));
  }
  if (YAML::Node n = node["min_repeat_ms"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.min_repeat_ms,
                            ReadDouble(ctx, n, Join(key, "min_repeat_ms"), 0, 1e5));
  }
  if (YAML::Node n = node["timeout_seconds"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.timeout_seconds,
                            ReadDouble(ctx, n, Join(key, "timeout_seconds"), 0.001, 86400));
  }
  if (YAML::Node n = node["build_workers"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.build_workers, ReadInt(ctx, n, Join(key, "build_workers"), 1, 256));
  }
  if (YAML::Node n = node["flush_cache"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.flush_cache, ReadBool(ctx, n, Join(key, "flush_cache")));
  }
  if (YAML::Node n = node["check_correctness"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.check_correctness, ReadBool(ctx, n, Join(key, "check_correctness")));
  }
  if (YAML::Node n = node["atol"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.atol, ReadDouble(ctx, n, Join(key, "atol"), 0, 1e9));
  }
  if (YAML::Node n = node["rtol"]; n.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(m.rtol, ReadDouble(ctx, n, Join(key, "rtol"), 0, 1e9));
  }
  return m;
}

absl::StatusOr<YAML::Node> LoadYaml(const Context& ctx, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.path, ":", e.mark.is_null() ? 0 : e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
}

absl::Status YamlError(const Context& ctx, const YAML::Exception& e) {
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.path, ":", e.mark.is_null() ? 0 : e.mark.line + 1, ": ", e.msg));
}

absl::Status ReadCommonKeys(const Context& ctx, const YAML::Node& doc, std::string& name,
                            target::Target& target, int& threads) {
  TESSEL_ASSIGN_OR_RETURN(YAML::Node n, Require(ctx, doc, "", "name"));
  TESSEL_ASSIGN_OR_RETURN(name, ReadString(ctx, n, "name"));
  TESSEL_RETURN_IF_ERROR(CheckName(ctx, n, "name", name));
  if (YAML::Node t = doc["target"]; t.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(const std::string text, ReadString(ctx, t, "target"));
    absl::StatusOr<target::Target> parsed = target::Target::Parse(text);
    if (!parsed.ok()) return Fail(ctx, t, "target", std::string(parsed.status().message()));
    target = *std::move(parsed);
  }
  if (YAML::Node t = doc["threads"]; t.IsDefined()) {
    TESSEL_ASSIGN_OR_RETURN(threads, ReadInt(ctx, t, "threads", 1, 1024));
  }
  return absl::OkStatus();
}

}  // namespace tessel::experiments::fields
