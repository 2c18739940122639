#include "compiler/runtime/cuda/driver_api.h"

#include <absl/strings/str_cat.h>
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <type_traits>

namespace tessel::runtime::cuda {
namespace {

// cuda.h's values of the results whose status code is not Internal.
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kInvalidDevice = 101;

struct Loaded {
  DriverApi api{};
  absl::Status status;
};

template <class Fn>
bool Find(void* library, const char* name, Fn& fn, absl::Status& status) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn == nullptr && status.ok()) {
    status =
        absl::UnavailableError(absl::StrCat("the CUDA driver (libcuda.so.1) has no entry point ",
                                            name, ": it is older than this runtime needs"));
  }
  return fn != nullptr;
}

Loaded Load() {
  Loaded out;
  // Never dlclose'd: kernels and allocations may outlive every object of the runtime.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    out.status = absl::UnavailableError(
        absl::StrCat("no CUDA driver: libcuda.so.1 not found (", why ? why : "dlopen failed", ")"));
    return out;
  }
  DriverApi& a = out.api;
  absl::Status& s = out.status;
  Find(library, "cuInit", a.cuInit, s);
  Find(library, "cuGetErrorName", a.cuGetErrorName, s);
  Find(library, "cuGetErrorString", a.cuGetErrorString, s);
  Find(library, "cuDeviceGetCount", a.cuDeviceGetCount, s);
  Find(library, "cuDeviceGet", a.cuDeviceGet, s);
  Find(library, "cuDeviceGetAttribute", a.cuDeviceGetAttribute, s);
  Find(library, "cuDeviceGetName", a.cuDeviceGetName, s);
  Find(library, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain, s);
  Find(library, "cuCtxSetCurrent", a.cuCtxSetCurrent, s);
  Find(library, "cuCtxSynchronize", a.cuCtxSynchronize, s);
  Find(library, "cuMemAlloc_v2", a.cuMemAlloc, s);
  Find(library, "cuMemFree_v2", a.cuMemFree, s);
  Find(library, "cuMemcpyHtoD_v2", a.cuMemcpyHtoD, s);
  Find(library, "cuMemcpyDtoH_v2", a.cuMemcpyDtoH, s);
  Find(library, "cuMemcpyDtoD_v2", a.cuMemcpyDtoD, s);
  Find(library, "cuPointerGetAttribute", a.cuPointerGetAttribute, s);
  Find(library, "cuModuleLoadData", a.cuModuleLoadData, s);
  Find(library, "cuModuleUnload", a.cuModuleUnload, s);
  Find(library, "cuModuleGetFunction", a.cuModuleGetFunction, s);
  Find(library, "cuLaunchKernel", a.cuLaunchKernel, s);
  Find(library, "cuEventCreate", a.cuEventCreate, s);
  Find(library, "cuEventDestroy_v2", a.cuEventDestroy, s);
  Find(library, "cuEventRecord", a.cuEventRecord, s);
  Find(library, "cuEventSynchronize", a.cuEventSynchronize, s);
  // CUDA 12.8 added the _v2 that cuda.h maps the name to since; older drivers have only this.
  a.cuEventElapsedTime =
      reinterpret_cast<decltype(a.cuEventElapsedTime)>(dlsym(library, "cuEventElapsedTime_v2"));
  if (a.cuEventElapsedTime == nullptr) {
    Find(library, "cuEventElapsedTime", a.cuEventElapsedTime, s);
  }
  // Optional: the graph timer says so where they are missing. Each is looked up (no
  // short-circuit), so a present one is never left null beside a missing one.
  int missing = 0;
  auto optional = [&](const char* name, auto& fn) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    if (fn == nullptr) ++missing;
  };
  optional("cuStreamCreate", a.cuStreamCreate);
  optional("cuStreamDestroy_v2", a.cuStreamDestroy);
  optional("cuStreamBeginCapture_v2", a.cuStreamBeginCapture);
  optional("cuStreamEndCapture", a.cuStreamEndCapture);
  optional("cuGraphInstantiateWithFlags", a.cuGraphInstantiate);
  optional("cuGraphLaunch", a.cuGraphLaunch);
  optional("cuGraphExecDestroy", a.cuGraphExecDestroy);
  optional("cuGraphDestroy", a.cuGraphDestroy);
  optional("cuStreamSynchronize", a.cuStreamSynchronize);
  a.has_graphs = missing == 0;
  if (!s.ok()) return out;
  const CUresult init = a.cuInit(0);
  if (init != kCudaSuccess) {
    const absl::Status why = CheckCuda(a, init, "cuInit");
    out.status = absl::UnavailableError(
        absl::StrCat("the CUDA driver is loaded but cannot be used: ", why.message()));
  }
  return out;
}

}  // namespace

absl::StatusOr<const DriverApi*> Driver() {
  static const Loaded* loaded = new Loaded(Load());
  if (!loaded->status.ok()) return loaded->status;
  return &loaded->api;
}

absl::Status CheckCuda(const DriverApi& api, CUresult result, const char* what) {
  if (result == kCudaSuccess) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(result, &name) != kCudaSuccess) {
    name = nullptr;
  }
  if (api.cuGetErrorString == nullptr || api.cuGetErrorString(result, &text) != kCudaSuccess) {
    text = nullptr;
  }
  const std::string message =
      absl::StrCat(what, ": ", name ? name : absl::StrCat("CUDA error ", result), ": ",
                   text ? text : "(no description)");
  switch (result) {
    case kOutOfMemory:
      return absl::ResourceExhaustedError(message);
    case kNoDevice:
    case kInvalidDevice:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status UseDevice(const DriverApi& api, int ordinal) {
  static std::mutex mu;
  static auto* contexts = new std::map<int, CUcontext>;
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = contexts->find(ordinal);
    if (it == contexts->end()) {
      int count = 0;
      if (absl::Status s = CheckCuda(api, api.cuDeviceGetCount(&count), "cuDeviceGetCount");
          !s.ok()) {
        return s;
      }
      if (ordinal < 0 || ordinal >= count) {
        return absl::InvalidArgumentError(
            absl::StrCat("no CUDA device cuda:", ordinal, " (this machine has ", count, ")"));
      }
      CUdevice device = 0;
      if (absl::Status s = CheckCuda(api, api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
          !s.ok()) {
        return s;
      }
      if (absl::Status s = CheckCuda(api, api.cuDevicePrimaryCtxRetain(&context, device),
                                     "cuDevicePrimaryCtxRetain");
          !s.ok()) {
        return s;
      }
      contexts->emplace(ordinal, context);
    } else {
      context = it->second;
    }
  }
  return CheckCuda(api, api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

namespace {
thread_local CUstream launch_stream = nullptr;
}  // namespace

CUstream CurrentLaunchStream() { return launch_stream; }

LaunchStreamScope::LaunchStreamScope(CUstream stream) : previous_(launch_stream) {
  launch_stream = stream;
}

LaunchStreamScope::~LaunchStreamScope() { launch_stream = previous_; }

}  // namespace tessel::runtime::cuda
