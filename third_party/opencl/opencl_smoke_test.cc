// OpenCL: the ICD loader links, and where a platform is installed (PoCL here) a one-line kernel
// builds and runs on its first device and writes what the host expects. Skipped, naming the
// error, where the loader finds no platform.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(OpenclSmokeTest, RunsAKernel) {
  cl_uint platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &platforms);
  if (err != CL_SUCCESS || platforms == 0) {
    GTEST_SKIP() << "no OpenCL platform (clGetPlatformIDs returned " << err << ")";
  }
  cl_platform_id platform = nullptr;
  ASSERT_EQ(clGetPlatformIDs(1, &platform, nullptr), CL_SUCCESS);
  cl_device_id device = nullptr;
  ASSERT_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), CL_SUCCESS);
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const char* source = "__kernel void k(__global int* out) { out[get_global_id(0)] = "
                       "(int)get_global_id(0) * 3; }";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = clCreateKernel(program, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 100;
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<int> host(n, -1);
  ASSERT_EQ(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * sizeof(int), host.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(host[i], static_cast<int>(i) * 3) << i;
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

}  // namespace
