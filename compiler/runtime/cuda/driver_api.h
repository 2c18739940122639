#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstddef>
#include <cstdint>

// The CUDA driver API, loaded with dlopen("libcuda.so.1") the first time something asks for it,
// never linked: the build and every test work on a machine without a GPU or a driver, and only
// the calls that need the device report that there is none.
//
// The types are declared here rather than taken from the toolkit's cuda.h, so that the runtime
// builds where no toolkit is installed either; they match cuda.h's ABI (CUresult is an int enum,
// handles are opaque pointers, device pointers are 64-bit). Entry points are looked up by their
// ABI names (cuMemAlloc_v2, ...): the names cuda.h's macros map the unversioned ones to.
namespace tessel::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT: cuda.h's type
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

inline constexpr CUresult kCudaSuccess = 0;
// cuda.h's CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL and CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*.
inline constexpr int kPointerAttributeDeviceOrdinal = 9;
inline constexpr int kDeviceAttributeComputeCapabilityMajor = 75;
inline constexpr int kDeviceAttributeComputeCapabilityMinor = 76;
// cuda.h's CU_STREAM_CAPTURE_MODE_RELAXED: other calls of the thread may run during a capture.
inline constexpr int kStreamCaptureModeRelaxed = 2;

struct DriverApi {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr* ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr to, const void* from, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void* to, CUdeviceptr from, size_t bytes);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr to, CUdeviceptr from, size_t bytes);
  CUresult (*cuPointerGetAttribute)(void* data, int attribute, CUdeviceptr ptr);
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params, void** extra);
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end);
  // Streams and graphs, for replaying captured launches (kernel_timer.h); nullptr each where the
  // driver lacks it (CUDA before 11.4), which only the graph timer reports.
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph);
  CUresult (*cuGraphInstantiate)(CUgraphExec* exec, CUgraph graph, unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  bool has_graphs;  // every entry point of the group above was found
};

// The driver, loaded and initialised (cuInit) once per process; later calls return the same
// table or the same error. Unavailable "no CUDA driver: libcuda.so.1 not found (...)" when the
// library is missing, naming the missing entry point when it is too old, and with cuInit's error
// when it loads but finds no usable device (the stub library of the toolkit answers so).
absl::StatusOr<const DriverApi*> Driver();

// OK for kCudaSuccess; otherwise an error "<what>: <cuGetErrorName>: <cuGetErrorString>" whose
// code follows the result (out of memory: ResourceExhausted; invalid device: InvalidArgument;
// else Internal).
absl::Status CheckCuda(const DriverApi& api, CUresult result, const char* what);

// Makes device `ordinal`'s primary context current on the calling thread (retained once per
// device for the life of the process). InvalidArgument naming the device when there is no such
// device.
absl::Status UseDevice(const DriverApi& api, int ordinal);

// The stream the calling thread's kernel launches go to: the legacy default stream (nullptr)
// except inside a LaunchStreamScope, which the kernel timer opens to capture launches into a
// graph.
CUstream CurrentLaunchStream();

class LaunchStreamScope {
 public:
  explicit LaunchStreamScope(CUstream stream);
  ~LaunchStreamScope();
  LaunchStreamScope(const LaunchStreamScope&) = delete;
  LaunchStreamScope& operator=(const LaunchStreamScope&) = delete;

 private:
  CUstream previous_;
};

}  // namespace tessel::runtime::cuda
