// Measurement bundles: written and read back, their errors named; without a GPU RunBundle says
// why nothing ran. (The GPU machine runs the real bundles: experiments/gpu/README.md.)
#include "compiler/runtime/cuda/bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/runtime/cuda/cuda_module.h"
#include "compiler/runtime/cuda/driver_api.h"

namespace tessel::runtime::cuda {
namespace {

std::string TempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

// A module whose one kernel `k` takes one float32 tensor of 4 elements.
Module OneKernel() {
  CudaModuleData data;
  data.arch = "sm_90";
  data.cubin = "not a cubin";
  CudaKernel k;
  k.signature.name = "k";
  ParamSpec x;
  x.name = "X";
  x.dtype = {kDLFloat, 32, 1};
  x.shape = {DimSpec{4, -1}};
  k.signature.params = {x};
  k.launch.grid[0] = LaunchExpr::Constant(1);
  k.launch.block[0] = LaunchExpr::Constant(4);
  data.kernels.push_back(k);
  return MakeCudaModule(std::move(data));
}

Bundle OneEntry() {
  Bundle b;
  b.target = "cuda -arch=sm_90";
  b.timer = {2, 3, 5.0, 1};
  b.entries.push_back({"first", "first.cubin", "k", {{4}}, {7}, 8.0, "matmul"});
  return b;
}

TEST(BundleTest, WrittenAndReadBack) {
  const std::string dir = TempDir("bundle");
  ASSERT_TRUE(WriteBundle(dir, OneEntry(), {OneKernel()}).ok());
  EXPECT_TRUE(std::filesystem::exists(dir + "/first.cubin"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/first.cubin.json"));
  absl::StatusOr<Bundle> back = ReadBundle(dir);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->target, "cuda -arch=sm_90");
  EXPECT_EQ(back->timer.number, 2);
  EXPECT_EQ(back->timer.repeat, 3);
  EXPECT_EQ(back->timer.min_repeat_ms, 5.0);
  EXPECT_EQ(back->timer.warmup, 1);
  ASSERT_EQ(back->entries.size(), 1u);
  const BundleEntry& e = back->entries[0];
  EXPECT_EQ(e.name, "first");
  EXPECT_EQ(e.module, "first.cubin");
  EXPECT_EQ(e.function, "k");
  EXPECT_EQ(e.tensors, (std::vector<std::vector<int64_t>>{{4}}));
  EXPECT_EQ(e.scalars, std::vector<int64_t>{7});
  EXPECT_EQ(e.flops, 8.0);
  EXPECT_EQ(e.reference, "matmul");
}

TEST(BundleTest, WriteErrors) {
  Bundle two = OneEntry();
  two.entries.push_back(two.entries[0]);
  absl::Status s = WriteBundle(TempDir("dup"), two, {OneKernel(), OneKernel()});
  EXPECT_NE(s.message().find("two entries are named 'first'"), std::string::npos) << s;
  s = WriteBundle(TempDir("count"), OneEntry(), {});
  EXPECT_NE(s.message().find("1 entries but 0 modules"), std::string::npos) << s;
}

TEST(BundleTest, ReadErrorsNameTheFileAndField) {
  const std::string dir = TempDir("bad");
  ASSERT_TRUE(WriteBundle(dir, OneEntry(), {OneKernel()}).ok());
  auto rewrite = [&](const std::string& text) {
    std::ofstream(dir + "/bundle.json") << text;
    return ReadBundle(dir).status();
  };
  absl::Status s = rewrite("{");
  EXPECT_NE(s.message().find("bundle.json: not JSON"), std::string::npos) << s;
  s = rewrite(R"({"format": "other", "version": 1})");
  EXPECT_NE(s.message().find("not a tessel-cuda-bundle version 1"), std::string::npos) << s;
  s = rewrite(R"({"format": "tessel-cuda-bundle", "version": 1})");
  EXPECT_NE(s.message().find("bundle.json: missing 'target'"), std::string::npos) << s;
  s = rewrite(R"({"format": "tessel-cuda-bundle", "version": 1, "target": "cuda",
                  "timer": {"number": 1, "repeat": 0, "min_repeat_ms": 0, "warmup": 0},
                  "entries": []})");
  EXPECT_NE(s.message().find("timer: TimerOptions.repeat is 0"), std::string::npos) << s;
  s = rewrite(R"({"format": "tessel-cuda-bundle", "version": 1, "target": "cuda",
                  "timer": {"number": 1, "repeat": 1, "min_repeat_ms": 0, "warmup": 0},
                  "entries": [{"name": "a", "module": "a.cubin", "function": "k",
                               "tensors": "no", "scalars": [], "flops": 0,
                               "reference": ""}]})");
  EXPECT_NE(s.message().find("entries[0]: 'tensors' has the wrong type"), std::string::npos) << s;
  EXPECT_EQ(ReadBundle(TempDir("none")).status().code(), absl::StatusCode::kNotFound);
}

TEST(BundleTest, RunWithoutADriverSaysWhy) {
  if (Driver().ok()) GTEST_SKIP() << "this machine has a CUDA driver";
  const std::string dir = TempDir("run");
  ASSERT_TRUE(WriteBundle(dir, OneEntry(), {OneKernel()}).ok());
  absl::StatusOr<BundleResult> r = RunBundle(dir, TempDir("arrays"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace tessel::runtime::cuda
