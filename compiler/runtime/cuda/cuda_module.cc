#include "compiler/runtime/cuda/cuda_module.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "compiler/runtime/cuda/driver_api.h"
#include "compiler/runtime/cuda/module_file.h"
#include "compiler/runtime/device_api.h"

namespace tessel::runtime::cuda {
namespace {

class CudaModuleNode final : public ModuleNode {
 public:
  explicit CudaModuleNode(CudaModuleData data) : data_(std::move(data)) {
    for (const CudaKernel& k : data_.kernels) signatures_.push_back(k.signature);
  }
  ~CudaModuleNode() override {
    // Unloading needs the driver the modules were loaded with; a failure at exit is moot.
    absl::StatusOr<const DriverApi*> api = Driver();
    if (!api.ok()) return;
    for (const auto& [device, loaded] : loaded_) {
      if (UseDevice(**api, device).ok()) (*api)->cuModuleUnload(loaded.module);
    }
  }

  std::string kind() const override { return "cuda"; }
  const std::vector<FunctionSignature>& signatures() const override { return signatures_; }

  DLDeviceType device_type() const override { return kDLCUDA; }

  // Launches kernel `name`. A Function holds this node, so `this` outlives every call.
  absl::StatusOr<Invoker> Entry(const std::string& name) const override {
    for (size_t k = 0; k < data_.kernels.size(); ++k) {
      if (data_.kernels[k].signature.name != name) continue;
      return Invoker(
          [this, k](const uint64_t* slots) { return Launch(static_cast<int>(k), slots); });
    }
    return absl::NotFoundError(absl::StrCat("no kernel '", name, "' in the cuda module"));
  }

  absl::Status Save(const std::string& path) const override { return SaveModuleFiles(data_, path); }

 private:
  struct Loaded {
    CUmodule module = nullptr;
    std::vector<CUfunction> functions;
  };

  absl::Status Launch(int k, const uint64_t* slots) const;
  absl::StatusOr<CUfunction> Function(const DriverApi& api, int device, int k) const;

  CudaModuleData data_;
  std::vector<FunctionSignature> signatures_;
  mutable std::mutex mu_;
  mutable std::map<int, Loaded> loaded_;  // by device ordinal
};

absl::StatusOr<CUfunction> CudaModuleNode::Function(const DriverApi& api, int device, int k) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = loaded_.find(device);
  if (it == loaded_.end()) {
    Loaded l;
    if (absl::Status s =
            CheckCuda(api, api.cuModuleLoadData(&l.module, data_.cubin.data()), "cuModuleLoadData");
        !s.ok()) {
      int major = 0, minor = 0;
      CUdevice d = 0;
      api.cuDeviceGet(&d, device);
      api.cuDeviceGetAttribute(&major, kDeviceAttributeComputeCapabilityMajor, d);
      api.cuDeviceGetAttribute(&minor, kDeviceAttributeComputeCapabilityMinor, d);
      return absl::Status(
          s.code(), absl::StrCat("loading the cuda module (built for ", data_.arch,
                                 ") on cuda:", device, " (sm_", major, minor, "): ", s.message()));
    }
    for (const CudaKernel& kernel : data_.kernels) {
      CUfunction f = nullptr;
      if (absl::Status s =
              CheckCuda(api, api.cuModuleGetFunction(&f, l.module, kernel.signature.name.c_str()),
                        "cuModuleGetFunction");
          !s.ok()) {
        api.cuModuleUnload(l.module);
        return absl::Status(s.code(),
                            absl::StrCat("kernel '", kernel.signature.name, "': ", s.message()));
      }
      l.functions.push_back(f);
    }
    it = loaded_.emplace(device, std::move(l)).first;
  }
  return it->second.functions[k];
}

absl::Status CudaModuleNode::Launch(int k, const uint64_t* slots) const {
  const CudaKernel& kernel = data_.kernels[k];
  const FunctionSignature& sig = kernel.signature;
  absl::StatusOr<const DriverApi*> driver = Driver();
  if (!driver.ok()) return driver.status();
  const DriverApi& api = **driver;
  auto error = [&](size_t i, const std::string& problem) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", sig.name, "' argument ", i,
                                                   " (parameter '", sig.params[i].name,
                                                   "'): ", problem));
  };
  // The device: that of the tensors, which must all be CUDA memory of one device.
  int device = -1;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (sig.params[i].kind != ParamSpec::Kind::kTensor || slots[i] == 0) continue;
    int ordinal = -1;
    if (api.cuPointerGetAttribute(&ordinal, kPointerAttributeDeviceOrdinal,
                                  static_cast<CUdeviceptr>(slots[i])) != kCudaSuccess) {
      return error(i, "the tensor's data is not CUDA device memory");
    }
    if (device >= 0 && ordinal != device) {
      return error(i, absl::StrCat("the tensor is on cuda:", ordinal,
                                   " but an earlier one is on cuda:", device));
    }
    device = ordinal;
  }
  if (device < 0) device = 0;
  if (absl::Status s = UseDevice(api, device); !s.ok()) return s;

  unsigned dims[6];
  const int num_slots = sig.num_slots();
  for (int d = 0; d < 6; ++d) {
    const LaunchExpr& e = d < 3 ? kernel.launch.grid[d] : kernel.launch.block[d - 3];
    absl::StatusOr<int64_t> v = e.Evaluate(slots, num_slots);
    if (!v.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", sig.name, "': ", v.status().message()));
    if (*v == 0) return absl::OkStatus();  // empty tensors: nothing to run
    if (*v < 0 || *v > 0x7fffffff) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", sig.name, "': ", d < 3 ? "grid" : "block", " extent ",
          std::string(1, "xyz"[d % 3]), " = ", *v, " (", e.ToString(), ") is out of range"));
    }
    dims[d] = static_cast<unsigned>(*v);
  }
  absl::StatusOr<CUfunction> function = Function(api, device, k);
  if (!function.ok()) return function.status();

  // One value per slot, in the kernel parameter's own type.
  std::vector<uint64_t> values(num_slots);
  std::vector<void*> params(num_slots);
  for (int s = 0; s < num_slots; ++s) {
    values[s] = slots[s];
    const bool is_param = s < static_cast<int>(sig.params.size());
    if (is_param && sig.params[s].kind == ParamSpec::Kind::kFloat &&
        sig.params[s].dtype.bits == 32) {
      // The slot holds a double's bits; the kernel takes a float.
      double d;
      std::memcpy(&d, &slots[s], sizeof d);
      const float f = static_cast<float>(d);
      values[s] = 0;
      std::memcpy(&values[s], &f, sizeof f);
    }
    // Integers narrower than 64 bits: the low bytes of the slot are the value (little endian).
    params[s] = &values[s];
  }
  absl::Status s =
      CheckCuda(api,
                api.cuLaunchKernel(*function, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5],
                                   0, CurrentLaunchStream(), params.data(), nullptr),
                "cuLaunchKernel");
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("launching kernel '", sig.name, "' on grid (", dims[0],
                                             ", ", dims[1], ", ", dims[2], ") block (", dims[3],
                                             ", ", dims[4], ", ", dims[5], "): ", s.message()));
}

}  // namespace

Module MakeCudaModule(CudaModuleData data) {
  return Module(std::make_shared<CudaModuleNode>(std::move(data)));
}

absl::StatusOr<Module> LoadCudaModule(const std::string& path) {
  absl::StatusOr<CudaModuleData> data = LoadModuleFiles(path);
  if (!data.ok()) return data.status();
  return MakeCudaModule(*std::move(data));
}

}  // namespace tessel::runtime::cuda
