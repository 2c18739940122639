#include "experiments/load_config.h"

#include <absl/strings/str_cat.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "compiler/support/status_macros.h"
#include "experiments/config_fields.h"

namespace tessel::experiments {

absl::StatusOr<AnyConfig> ParseAnyConfig(const std::string& text, const std::string& path,
                                         const KnownNames& known) {
  const fields::Context ctx{path.empty() ? "<config>" : path};
  TESSEL_ASSIGN_OR_RETURN(const YAML::Node doc, fields::LoadYaml(ctx, text));
  std::string kind = "tuning";
  if (doc.IsMap()) {
    if (const YAML::Node k = doc["kind"]; k.IsDefined()) {
      TESSEL_ASSIGN_OR_RETURN(kind, fields::ReadString(ctx, k, "kind"));
      TESSEL_RETURN_IF_ERROR(
          fields::CheckKnown(ctx, k, "kind", "experiment kind", kind, {"models", "tuning"}));
    }
  }
  if (kind == "models") {
    TESSEL_ASSIGN_OR_RETURN(ModelsConfig c, ParseModelsConfig(text, path, known));
    return AnyConfig(std::move(c));
  }
  TESSEL_ASSIGN_OR_RETURN(ExperimentConfig c, ParseExperimentConfig(text, path, known));
  return AnyConfig(std::move(c));
}

absl::StatusOr<AnyConfig> LoadAnyConfig(const std::string& path, const KnownNames& known) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read the config '", path, "'"));
  std::stringstream text;
  text << file.rdbuf();
  return ParseAnyConfig(text.str(), path, known);
}

}  // namespace tessel::experiments
