#include "compiler/codegen/gpu/testing/run_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "compiler/codegen/interp/interp.h"
#include "compiler/runtime/ndarray.h"

namespace tessel::codegen::gpu::testing {

void ExpectMatchesInterpreter(const GpuKernel& k, const runtime::Module& module, DLDevice device,
                              int seed, double tolerance, const std::string& what,
                              const std::string& context) {
  constexpr DLDataType kF32{kDLFloat, 32, 1};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const size_t tensors = k.tensor_shapes.size();
  std::vector<runtime::NDArray> reference, on_device;
  for (size_t t = 0; t < tensors; ++t) {
    runtime::NDArray h = runtime::NDArray::Empty(k.tensor_shapes[t], kF32);
    for (int64_t e = 0; e < h.NumElements(); ++e) {
      h.data<float>()[e] = t + 1 == tensors ? std::nanf("") : uniform(rng);
    }
    absl::StatusOr<runtime::NDArray> d = h.CopyTo(device);
    ASSERT_TRUE(d.ok()) << d.status();
    reference.push_back(h);
    on_device.push_back(*std::move(d));
  }
  std::vector<interp::Arg> interp_args;
  std::vector<runtime::Arg> device_args;
  for (size_t t = 0; t < tensors; ++t) {
    interp_args.push_back(reference[t].dl());
    device_args.push_back(on_device[t].dl());
  }
  for (int64_t v : k.scalars) {
    interp_args.push_back(v);
    device_args.push_back(v);
  }
  ASSERT_TRUE(interp::Run(k.func, interp_args).ok());
  absl::StatusOr<runtime::Function> kernel = module.GetFunction(k.func->name);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  absl::Status call = (*kernel)(device_args);
  ASSERT_TRUE(call.ok()) << call;
  absl::StatusOr<runtime::NDArray> out = on_device.back().CopyTo({kDLCPU, 0});
  ASSERT_TRUE(out.ok()) << out.status();
  const runtime::NDArray& want = reference.back();
  int64_t bad = 0;
  for (int64_t e = 0; e < want.NumElements(); ++e) {
    const double w = want.data<float>()[e], g = out->data<float>()[e];
    if (!(std::fabs(g - w) <= tolerance * (1 + std::fabs(w)))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << runtime::IndexText(want.shape(), e) << ": " << what << " "
                      << g << ", interpreter " << w;
      }
    }
  }
  EXPECT_EQ(bad, 0) << "of " << want.NumElements() << " elements\n" << context;
}

}  // namespace tessel::codegen::gpu::testing
