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
  b.entries.push_back({.name = "first",
                       .module = "first.cubin",
                       .function = "k",
                       .tensors = {{4}},
                       .scalars = {7},
                       .flops = 8.0,
                       .reference = "matmul"});
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

// An entry checked on the GPU machine: its input files and expected output travel in bundle.json.
TEST(BundleTest, CheckedEntryWrittenAndReadBack) {
  const std::string dir = TempDir("checked");
  Bundle b = OneEntry();
  b.entries[0].tensors = {{4}, {4}};
  b.entries[0].inputs = {"x.npy"};
  b.entries[0].expected = "y.npy";
  b.entries[0].atol = 1e-4;
  b.entries[0].rtol = 2e-4;
  ASSERT_TRUE(WriteBundle(dir, b, {OneKernel()}).ok());
  absl::StatusOr<Bundle> back = ReadBundle(dir);
  ASSERT_TRUE(back.ok()) << back.status();
  const BundleEntry& e = back->entries[0];
  EXPECT_EQ(e.inputs, std::vector<std::string>{"x.npy"});
  EXPECT_EQ(e.expected, "y.npy");
  EXPECT_EQ(e.atol, 1e-4);
  EXPECT_EQ(e.rtol, 2e-4);
  // An unchecked entry has neither.
  const std::string plain = TempDir("unchecked");
  ASSERT_TRUE(WriteBundle(plain, OneEntry(), {OneKernel()}).ok());
  back = ReadBundle(plain);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->entries[0].inputs.empty());
  EXPECT_TRUE(back->entries[0].expected.empty());
}

TEST(BundleTest, ResultsWrittenAndReadBack) {
  BundleResult r{"NVIDIA H100",
                 "sm_90",
                 {{"a", {1e-3, 2e-3}, "", "", "from a CUDA graph of 20 calls"},
                  {"b", {}, "output 0 at [1] is 2 but the expected output gives 3", "wrong_answer"},
                  {"c", {}, "launching kernel 'k': an illegal address", "runtime"}}};
  const std::string path = TempDir("result") + ".json";
  std::ofstream(path) << BundleResultToJson(r);
  absl::StatusOr<BundleResult> back = ReadBundleResult(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->device, "NVIDIA H100");
  EXPECT_EQ(back->arch, "sm_90");
  ASSERT_EQ(back->entries.size(), 3u);
  EXPECT_EQ(back->entries[0].seconds, (std::vector<double>{1e-3, 2e-3}));
  EXPECT_EQ(back->entries[0].timing, "from a CUDA graph of 20 calls");
  EXPECT_EQ(back->entries[1].error_kind, "wrong_answer");
  EXPECT_EQ(back->entries[2].error_kind, "runtime");
}

TEST(BundleTest, ResultReadErrorsNameTheFileAndField) {
  const std::string path = TempDir("bad_result") + ".json";
  auto rewrite = [&](const std::string& text) {
    std::ofstream(path) << text;
    return ReadBundleResult(path).status();
  };
  absl::Status s = rewrite("[");
  EXPECT_NE(s.message().find("bad_result.json: not JSON"), std::string::npos) << s;
  s = rewrite(R"({"device": "x", "arch": "sm_90"})");
  EXPECT_NE(s.message().find("missing 'entries'"), std::string::npos) << s;
  s = rewrite(R"({"device": "x", "arch": "sm_90", "entries": [
                  {"name": "a", "seconds": [], "error": "boom", "error_kind": "cosmic"}]})");
  EXPECT_NE(s.message().find("entries[0]: 'error_kind' is 'cosmic'"), std::string::npos) << s;
  s = rewrite(R"({"device": "x", "arch": "sm_90", "entries": [
                  {"name": "a", "seconds": [], "error": ""}]})");
  EXPECT_NE(s.message().find("entries[0]: neither times nor an error"), std::string::npos) << s;
  s = rewrite(R"({"device": "x", "arch": "sm_90", "entries": [
                  {"name": "a", "seconds": [1e-3], "error": "", "timing": 20}]})");
  EXPECT_NE(s.message().find("entries[0]"), std::string::npos) << s;
  EXPECT_NE(s.message().find("timing"), std::string::npos) << s;
  EXPECT_EQ(ReadBundleResult(TempDir("no_result") + ".json").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(BundleTest, WriteErrors) {
  Bundle two = OneEntry();
  two.entries.push_back(two.entries[0]);
  absl::Status s = WriteBundle(TempDir("dup"), two, {OneKernel(), OneKernel()});
  EXPECT_NE(s.message().find("two entries are named 'first'"), std::string::npos) << s;
  s = WriteBundle(TempDir("count"), OneEntry(), {});
  EXPECT_NE(s.message().find("1 entries but 0 modules"), std::string::npos) << s;
  Bundle inputs = OneEntry();
  inputs.entries[0].inputs = {"x.npy"};  // its one tensor is the output: no input to give
  s = WriteBundle(TempDir("inputs"), inputs, {OneKernel()});
  EXPECT_NE(s.message().find("entry 'first' has 1 input files for 0 input tensors"),
            std::string::npos)
      << s;
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
  EXPECT_NE(s.message().find("not a tessel-cuda-bundle of version 1 to 2"), std::string::npos) << s;
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
  s = rewrite(R"({"format": "tessel-cuda-bundle", "version": 2, "target": "cuda",
                  "timer": {"number": 1, "repeat": 1, "min_repeat_ms": 0, "warmup": 0},
                  "entries": [{"name": "a", "module": "a.cubin", "function": "k",
                               "tensors": [[4], [4]], "scalars": [], "flops": 0,
                               "reference": "", "inputs": ["x.npy", "y.npy"]}]})");
  EXPECT_NE(s.message().find("entries[0]: 2 input files for 1 input tensors"), std::string::npos)
      << s;
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
