#include "compiler/runtime/cuda/module_file.h"

#include <absl/strings/str_cat.h>

#include <nlohmann/json.hpp>

#include "compiler/runtime/kernel_meta.h"
#include "compiler/support/atomic_file.h"

namespace tessel::runtime::cuda {
namespace {

constexpr char kFormat[] = "tessel-cuda-module";
constexpr int kVersion = 1;

}  // namespace

absl::Status SaveModuleFiles(const CudaModuleData& data, const std::string& path) {
  ModuleMeta meta;
  meta.fields["arch"] = data.arch;
  for (const CudaKernel& k : data.kernels) {
    meta.kernels.push_back({k.signature, k.launch,
                            {{"registers", k.resources.registers},
                             {"shared_bytes", k.resources.shared_bytes},
                             {"stack_bytes", k.resources.stack_bytes},
                             {"spill_store_bytes", k.resources.spill_store_bytes},
                             {"spill_load_bytes", k.resources.spill_load_bytes},
                             {"constant_bytes", k.resources.constant_bytes}}});
  }
  if (absl::Status s = support::WriteFileAtomically(path, data.cubin); !s.ok()) return s;
  return support::WriteFileAtomically(path + ".json", ModuleMetaToJson(kFormat, kVersion, meta));
}

absl::StatusOr<CudaModuleData> LoadModuleFiles(const std::string& path) {
  const std::string json_path = path + ".json";
  absl::StatusOr<std::string> cubin = support::ReadFile(path);
  if (!cubin.ok()) return cubin.status();
  absl::StatusOr<std::string> text = support::ReadFile(json_path);
  if (!text.ok()) return text.status();
  absl::StatusOr<ModuleMeta> meta = ModuleMetaFromJson(*text, kFormat, kVersion, json_path);
  if (!meta.ok()) return meta.status();
  CudaModuleData data;
  data.cubin = *std::move(cubin);
  absl::StatusOr<std::string> arch = ReadField<std::string>(meta->fields, "arch", json_path);
  if (!arch.ok()) return arch.status();
  data.arch = *arch;
  for (const KernelMeta& k : meta->kernels) {
    CudaKernel kernel{k.signature, k.launch, {}};
    KernelResources& r = kernel.resources;
    absl::StatusOr<int> registers = ReadField<int>(k.fields, "registers", json_path);
    if (!registers.ok()) return registers.status();
    r.registers = *registers;
    for (auto [key, field] : {std::pair{"shared_bytes", &r.shared_bytes},
                              std::pair{"stack_bytes", &r.stack_bytes},
                              std::pair{"spill_store_bytes", &r.spill_store_bytes},
                              std::pair{"spill_load_bytes", &r.spill_load_bytes},
                              std::pair{"constant_bytes", &r.constant_bytes}}) {
      absl::StatusOr<int64_t> v = ReadField<int64_t>(k.fields, key, json_path);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    data.kernels.push_back(std::move(kernel));
  }
  return data;
}

}  // namespace tessel::runtime::cuda
