#include "compiler/codegen/cuda/nvrtc_compile.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>

#include <vector>

#ifndef TESSEL_CUDA_MISSING
#include <nvrtc.h>
#endif

namespace tessel::codegen::cuda {

#ifdef TESSEL_CUDA_MISSING

absl::StatusOr<std::string> CompileToPtx(const std::string&, const std::string&, bool) {
  return absl::FailedPreconditionError(
      absl::StrCat("this build has no CUDA toolkit: ", TESSEL_CUDA_MISSING));
}

absl::StatusOr<std::string> NvrtcVersion() { return CompileToPtx("", "", false); }

#else

absl::StatusOr<std::string> NvrtcVersion() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) {
    return absl::InternalError("nvrtcVersion failed");
  }
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<std::string> CompileToPtx(const std::string& source, const std::string& arch,
                                         bool contract) {
  if (!absl::StartsWith(arch, "sm_")) {
    return absl::InvalidArgumentError(absl::StrCat("CUDA arch '", arch, "' is not sm_<NN>"));
  }
  nvrtcProgram program = nullptr;
  nvrtcResult r = nvrtcCreateProgram(&program, source.c_str(), "tessel.cu", 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    return absl::InternalError(absl::StrCat("nvrtcCreateProgram: ", nvrtcGetErrorString(r)));
  }
  const std::string gpu = absl::StrCat("--gpu-architecture=compute_", arch.substr(3));
  const char* options[] = {gpu.c_str(), "--std=c++17", contract ? "--fmad=true" : "--fmad=false"};
  r = nvrtcCompileProgram(program, 3, options);
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string log(size, '\0');
  if (size > 0) nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  std::string ptx;
  if (r == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(program, &size);
    ptx.resize(size);
    nvrtcGetPTX(program, ptx.data());
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  }
  nvrtcDestroyProgram(&program);
  if (r != NVRTC_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat("NVRTC cannot compile the generated CUDA C for ",
                                                   arch, " (", nvrtcGetErrorString(r),
                                                   "):\n", log));
  }
  return ptx;
}

#endif

}  // namespace tessel::codegen::cuda
