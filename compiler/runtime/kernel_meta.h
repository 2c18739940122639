#pragma once

#include <absl/status/statusor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/runtime/function_signature.h"
#include "compiler/runtime/launch_expr.h"

// The metadata file a saved device module (cuda, opencl) keeps beside its code: the format and
// version, the module's own fields, and per kernel its signature and launch extents plus the
// backend's own fields:
//   {"format": "tessel-cuda-module", "version": 1, <module fields>,
//    "signatures": <SignaturesToJson>,
//    "kernels": [{"name": ..., "grid": ["$3 63 + 64 /", "1", "1"], "block": [...],
//                 <kernel fields>}]}
namespace tessel::runtime {

struct KernelMeta {
  FunctionSignature signature;
  LaunchDims launch;
  nlohmann::json fields = nlohmann::json::object();  // the backend's own, e.g. "registers"
};

struct ModuleMeta {
  nlohmann::json fields = nlohmann::json::object();  // the module's own, e.g. "arch"
  std::vector<KernelMeta> kernels;
};

// The file's text (indented JSON and a newline).
std::string ModuleMetaToJson(const std::string& format, int version, const ModuleMeta& meta);

// Reads the text back. Errors name `path` and what is malformed: not JSON, another format or
// version, a signature or launch extent that does not parse, kernels that do not match the
// signatures one to one. The fields come back as they were written (every key of the file but
// the ones above goes to `fields`); their readers check them (ReadField).
absl::StatusOr<ModuleMeta> ModuleMetaFromJson(const std::string& text, const std::string& format,
                                              int version, const std::string& path);

// Field `key` of `fields` as a T; an error names path, key and what was found.
template <class T>
absl::StatusOr<T> ReadField(const nlohmann::json& fields, const std::string& key,
                            const std::string& path) {
  if (!fields.is_object() || !fields.contains(key)) {
    return absl::InvalidArgumentError("'" + path + "': missing \"" + key + "\"");
  }
  try {
    return fields.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError("'" + path + "': \"" + key + "\" has the wrong type: " +
                                      fields.at(key).dump());
  }
}

}  // namespace tessel::runtime
