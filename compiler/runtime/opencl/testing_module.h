#pragma once

#include <string>

#include "compiler/runtime/opencl/opencl_module.h"

// A hand-written module for the OpenCL runtime's tests: one kernel
// `scale(X: float32[n] written, n: int32)` that multiplies X by 2 (guarded by n), in work-groups
// of 128, ceil(n / 128) of them. `source` replaces its OpenCL C (a source that does not build).
namespace tessel::runtime::opencl::testing {

inline constexpr char kScaleSource[] = R"(__kernel void scale(__global float* restrict X, int n) {
  const int i = (int)get_group_id(0) * 128 + (int)get_local_id(0);
  if (i < n) X[i] = X[i] * 2.0f;
}
)";

inline OpenclModuleData ScaleModule(const std::string& source = kScaleSource) {
  OpenclModuleData data;
  data.source = source;
  OpenclKernel k;
  k.signature.name = "scale";
  ParamSpec x;
  x.name = "X";
  x.dtype = {kDLFloat, 32, 1};
  x.shape = {DimSpec{0, 1}};
  x.alignment = 64;
  x.written = true;
  ParamSpec n;
  n.name = "n";
  n.kind = ParamSpec::Kind::kInt;
  n.dtype = {kDLInt, 32, 1};
  k.signature.params = {x, n};
  k.launch.grid[0] = *LaunchExpr::Parse("$1 127 + 128 /");
  k.launch.block[0] = LaunchExpr::Constant(128);
  data.kernels.push_back(k);
  return data;
}

}  // namespace tessel::runtime::opencl::testing
