#include "compiler/runtime/kernel_meta.h"

#include <absl/strings/str_cat.h>

namespace tessel::runtime {

std::string ModuleMetaToJson(const std::string& format, int version, const ModuleMeta& meta) {
  std::vector<FunctionSignature> signatures;
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelMeta& k : meta.kernels) {
    signatures.push_back(k.signature);
    nlohmann::json grid = nlohmann::json::array(), block = nlohmann::json::array();
    for (int d = 0; d < 3; ++d) {
      grid.push_back(k.launch.grid[d].ToString());
      block.push_back(k.launch.block[d].ToString());
    }
    nlohmann::json kernel = {{"name", k.signature.name}, {"grid", grid}, {"block", block}};
    if (!k.fields.is_null()) kernel.update(k.fields);  // null: none, as from {}
    kernels.push_back(std::move(kernel));
  }
  nlohmann::json out = {{"format", format}, {"version", version}};
  if (!meta.fields.is_null()) out.update(meta.fields);
  out["signatures"] = nlohmann::json::parse(SignaturesToJson(signatures));
  out["kernels"] = std::move(kernels);
  return out.dump(1) + "\n";
}

absl::StatusOr<ModuleMeta> ModuleMetaFromJson(const std::string& text, const std::string& format,
                                              int version, const std::string& path) {
  auto malformed = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "': ", why));
  };
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object()) return malformed("not a JSON object");
  if (meta.value("format", "") != format || meta.value("version", 0) != version) {
    return malformed(absl::StrCat("not a ", format, " file of version ", version));
  }
  ModuleMeta out;
  try {
    absl::StatusOr<std::vector<FunctionSignature>> sigs =
        SignaturesFromJson(meta.at("signatures").dump());
    if (!sigs.ok()) return malformed(std::string(sigs.status().message()));
    const nlohmann::json& kernels = meta.at("kernels");
    if (!kernels.is_array() || kernels.size() != sigs->size()) {
      return malformed("\"kernels\" must have one entry per signature");
    }
    for (size_t i = 0; i < sigs->size(); ++i) {
      nlohmann::json k = kernels[i];
      KernelMeta kernel;
      kernel.signature = (*sigs)[i];
      if (k.at("name").get<std::string>() != kernel.signature.name) {
        return malformed(absl::StrCat("kernel ", i, " is not signature ", i, "'s"));
      }
      for (int d = 0; d < 3; ++d) {
        absl::StatusOr<LaunchExpr> g = LaunchExpr::Parse(k.at("grid").at(d).get<std::string>());
        if (!g.ok()) return malformed(std::string(g.status().message()));
        absl::StatusOr<LaunchExpr> b = LaunchExpr::Parse(k.at("block").at(d).get<std::string>());
        if (!b.ok()) return malformed(std::string(b.status().message()));
        kernel.launch.grid[d] = *g;
        kernel.launch.block[d] = *b;
      }
      for (const char* key : {"name", "grid", "block"}) k.erase(key);
      kernel.fields = std::move(k);
      out.kernels.push_back(std::move(kernel));
    }
  } catch (const nlohmann::json::exception& e) {
    return malformed(e.what());
  }
  for (const char* key : {"format", "version", "signatures", "kernels"}) meta.erase(key);
  out.fields = std::move(meta);
  return out;
}

}  // namespace tessel::runtime
