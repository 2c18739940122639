// A batch of dense.gpu candidates for sm_90 built into a bundle whose entries carry the inputs and
// the libtorch output, and cuda_runner's result file (written here as the GPU machine would)
// read back as records. The bundle's run needs a GPU: experiments/gpu/README.md.
#include "search/measure/cuda_batch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "compiler/ops/template.h"
#include "compiler/runtime/compare.h"
#include "compiler/runtime/cuda/bundle.h"
#include "compiler/runtime/npy.h"
#include "compiler/target/target_facts.h"
#include "search/measure/testing/some_configs.h"
#include "search/measure/testing/test_paths.h"
#include "search/measure/torch_reference.h"
#include "search/space/config_space.h"

namespace tessel::search {
namespace {

namespace fs = std::filesystem;

Task DenseTask(const std::string& target = "cuda -arch=sm_90") {
  absl::StatusOr<target::Target> t = target::Target::Parse(target);
  EXPECT_TRUE(t.ok()) << t.status();
  return {.template_name = "dense.gpu",
          .args = {{"m", 16}, {"n", 100}, {"k", 77}, {"bias", true}},
          .target = *t};
}

std::string FreshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir.string();
}

Measurer MakeMeasurer() {
  MeasureOptions o;
  o.worker_path = testing::RunfilesBinary("measure_worker");
  o.reference = TorchReferenceFn();
  o.build.timeout_seconds = 120;  // the machine may be busy; NVRTC takes its time
  absl::StatusOr<Measurer> m = Measurer::Create(o);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

TEST(CudaBatchTest, BuiltIntoACheckedBundleAndReadBack) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  const Task task = DenseTask();
  const std::vector<Config> configs = testing::SomeConfigs(task, 3, 3);
  Measurer measurer = MakeMeasurer();
  const std::string dir = FreshDir("batch");
  absl::StatusOr<WrittenBatch> written =
      WriteCudaBatch(dir, task, configs, measurer, TorchReferenceFn(), {});
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_FALSE(fs::exists(dir + ".partial"));
  for (const Record& r : written->failed) ADD_FAILURE() << r.result.error_message;
  ASSERT_EQ(written->bundled, 4);

  absl::StatusOr<runtime::cuda::Bundle> bundle = runtime::cuda::ReadBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ(bundle->target, task.target.ToString());
  ASSERT_EQ(bundle->entries.size(), 4u);
  for (const runtime::cuda::BundleEntry& e : bundle->entries) {
    EXPECT_TRUE(fs::exists(dir + "/" + e.module)) << e.module;
    EXPECT_EQ(e.tensors,
              (std::vector<std::vector<int64_t>>{{16, 77}, {100, 77}, {100}, {16, 100}}));
    EXPECT_EQ(e.inputs.size(), 3u);
    EXPECT_EQ(e.expected, "expected.npy");
  }
  // The expected output is libtorch's on the bundled inputs.
  std::vector<runtime::NDArray> inputs;
  for (const std::string& f : bundle->entries[0].inputs) {
    absl::StatusOr<runtime::NDArray> x = runtime::LoadNpy(dir + "/" + f);
    ASSERT_TRUE(x.ok()) << x.status();
    inputs.push_back(*std::move(x));
  }
  absl::StatusOr<std::vector<runtime::NDArray>> torch = TorchReferenceFn()(task, inputs);
  ASSERT_TRUE(torch.ok()) << torch.status();
  absl::StatusOr<runtime::NDArray> expected = runtime::LoadNpy(dir + "/expected.npy");
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_TRUE(runtime::CompareOutputs({*expected}, *torch, {.atol = 0, .rtol = 0}).ok());

  // What cuda_runner would write on the GPU machine: one timed, one wrong, two that faulted.
  runtime::cuda::BundleResult result{.device = "NVIDIA H100", .arch = "sm_90", .entries = {}};
  result.entries = {
      {"c0", {2e-6, 3e-6}, "", ""},
      {"c1", {}, "output 0 at [0, 3] is 1 but the expected output gives 2", "wrong_answer"},
      {"c2", {}, "launching kernel: an illegal memory access", "runtime"},
      {"c3", {}, "an earlier fault", "runtime"}};
  const std::string result_path = dir + "/results.json";
  std::ofstream(result_path) << runtime::cuda::BundleResultToJson(result);
  absl::StatusOr<std::vector<Record>> records = ReadCudaBatchResults(dir, result_path);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  absl::StatusOr<target::TargetFacts> facts = target::DescribeTarget(task.target);
  absl::StatusOr<ConfigSpace> space = Space(task, *facts);
  for (size_t i = 0; i < records->size(); ++i) {
    const Record& r = (*records)[i];
    EXPECT_EQ(r.task, task);
    EXPECT_EQ(r.config_index, configs[i].index());
    absl::StatusOr<Config> back = space->FromJson(r.config);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->index(), configs[i].index());
    EXPECT_GT(r.result.build_seconds, 0);
  }
  EXPECT_EQ((*records)[0].result.error, ErrorKind::kNone);
  EXPECT_EQ((*records)[0].result.costs, (std::vector<double>{2e-6, 3e-6}));
  EXPECT_EQ((*records)[1].result.error, ErrorKind::kWrongAnswer);
  EXPECT_EQ((*records)[2].result.error, ErrorKind::kRuntime);
  EXPECT_EQ((*records)[2].result.error_message, "launching kernel: an illegal memory access");

  // A result of another bundle is refused, naming what does not match.
  result.entries.pop_back();
  std::ofstream(result_path) << runtime::cuda::BundleResultToJson(result);
  absl::Status s = ReadCudaBatchResults(dir, result_path).status();
  EXPECT_NE(s.message().find("no result for candidate 'c3'"), std::string::npos) << s;
  result.entries.push_back({"c3", {1e-6}, "", ""});
  result.entries.push_back({"c9", {1e-6}, "", ""});
  std::ofstream(result_path) << runtime::cuda::BundleResultToJson(result);
  s = ReadCudaBatchResults(dir, result_path).status();
  EXPECT_NE(s.message().find("entry 'c9' is not a candidate"), std::string::npos) << s;

  // The folder is never overwritten.
  s = WriteCudaBatch(dir, task, configs, measurer, TorchReferenceFn(), {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
}

TEST(CudaBatchTest, Errors) {
  Measurer measurer = MakeMeasurer();
  const Task cpu = DenseTask("opencl");
  absl::Status s =
      WriteCudaBatch(FreshDir("cpu"), cpu, {}, measurer, TorchReferenceFn(), {}).status();
  EXPECT_NE(s.message().find("needs a cuda target, not 'opencl"), std::string::npos) << s;
  EXPECT_FALSE(fs::exists(FreshDir("cpu")));

  const std::string dir = FreshDir("not_a_batch");
  fs::create_directories(dir);
  std::ofstream(dir + "/batch.json") << R"({"format": "something else"})";
  s = ReadCudaBatchResults(dir, dir + "/results.json").status();
  EXPECT_NE(s.message().find("batch.json: not a tessel-cuda-batch of version 1"), std::string::npos)
      << s;
  s = ReadCudaBatchResults(FreshDir("absent"), "results.json").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
}

}  // namespace
}  // namespace tessel::search
