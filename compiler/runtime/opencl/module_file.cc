#include "compiler/runtime/opencl/module_file.h"

#include "compiler/runtime/kernel_meta.h"
#include "compiler/support/atomic_file.h"

namespace tessel::runtime::opencl {
namespace {

constexpr char kFormat[] = "tessel-opencl-module";
constexpr int kVersion = 1;

}  // namespace

absl::Status SaveModuleFiles(const OpenclModuleData& data, const std::string& path) {
  ModuleMeta meta;
  for (const OpenclKernel& k : data.kernels) meta.kernels.push_back({k.signature, k.launch, {}});
  if (absl::Status s = support::WriteFileAtomically(path, data.source); !s.ok()) return s;
  return support::WriteFileAtomically(path + ".json", ModuleMetaToJson(kFormat, kVersion, meta));
}

absl::StatusOr<OpenclModuleData> LoadModuleFiles(const std::string& path) {
  const std::string json_path = path + ".json";
  absl::StatusOr<std::string> source = support::ReadFile(path);
  if (!source.ok()) return source.status();
  absl::StatusOr<std::string> text = support::ReadFile(json_path);
  if (!text.ok()) return text.status();
  absl::StatusOr<ModuleMeta> meta = ModuleMetaFromJson(*text, kFormat, kVersion, json_path);
  if (!meta.ok()) return meta.status();
  OpenclModuleData data;
  data.source = *std::move(source);
  for (const KernelMeta& k : meta->kernels) data.kernels.push_back({k.signature, k.launch});
  return data;
}

}  // namespace tessel::runtime::opencl
