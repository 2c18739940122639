// Saved models with an offload: the small ResNet quantized for VDLA, its convolutions offloaded,
// saved and loaded back, computes what it computed before bit for bit, its offloaded kernels on
// VDLA again; a model without an offload saves as before (format version 2, no offload keys); a
// missing or malformed offload is an error naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "compiler/driver/compile_model.h"
#include "compiler/driver/compiled_model.h"
#include "compiler/driver/model_folder_testing.h"
#include "compiler/driver/quantize_model.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/runtime/vdla/vdla_module.h"
#include "compiler/target/facts_json.h"
#include "compiler/target/target.h"

namespace tessel::driver {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using runtime::NDArray;
using ::testing::HasSubstr;

using testing::LoadError;
using testing::Overwrite;
using testing::ReadJsonFile;
using testing::TempDir;

std::vector<NDArray> RunOnce(const CompiledModel& m, const std::vector<NDArray>& inputs) {
  absl::StatusOr<runtime::GraphExecutor> e = MakeExecutor(m);
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return {};
  absl::StatusOr<std::vector<NDArray>> out = e->Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<NDArray>();
}

void ExpectBitForBit(const std::vector<NDArray>& got, const std::vector<NDArray>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].NumBytes(), want[i].NumBytes()) << "output " << i;
    EXPECT_EQ(std::memcmp(got[i].data<void>(), want[i].data<void>(), want[i].NumBytes()), 0)
        << "output " << i;
  }
}

int OffloadedSteps(const CompiledModel& m) {
  int n = 0;
  for (const CompiledStep& s : m.steps) n += m.kernels[static_cast<size_t>(s.kernel)].offloaded;
  return n;
}

target::Target Vdla() { return *target::Target::Parse("vdla"); }

class OffloadIoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<testing::TestGraph> t = testing::SmallResNet();
    ASSERT_TRUE(t.ok()) << t.status();
    resnet_ = new testing::TestGraph(*std::move(t));
    const std::vector<std::vector<NDArray>> calibration = {
        {testing::RandomArray({1, 3, 16, 16}, graph::kFloat32, -1, 1, 1)},
        {testing::RandomArray({1, 3, 16, 16}, graph::kFloat32, -1, 1, 2)}};
    absl::StatusOr<QuantizedModel> q = QuantizeForAccelerator(resnet_->graph, Vdla(), calibration);
    ASSERT_TRUE(q.ok()) << q.status();
    absl::StatusOr<CompiledModel> m =
        Compile(q->graph, target::Target::Llvm(), nullptr, {.offload = "vdla"});
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_GT(m->NumOffloaded(), 0);
    model_ = new CompiledModel(*std::move(m));
    saved_ = new fs::path(TempDir("offloaded"));
    absl::Status s = model_->Save(saved_->string());
    ASSERT_TRUE(s.ok()) << s;
  }

  // A copy of the saved folder to damage.
  static fs::path Copy(const std::string& name) { return testing::CopyFolder(*saved_, name); }

  // A copy with its model.json edited by `edit`.
  static fs::path EditModel(const std::string& name, const std::function<void(json&)>& edit) {
    fs::path dir = Copy(name);
    json j = ReadJsonFile(dir / "model.json");
    edit(j);
    Overwrite(dir / "model.json", j.dump());
    return dir;
  }

  static testing::TestGraph* resnet_;
  static CompiledModel* model_;
  static fs::path* saved_;
};

testing::TestGraph* OffloadIoTest::resnet_ = nullptr;
CompiledModel* OffloadIoTest::model_ = nullptr;
fs::path* OffloadIoTest::saved_ = nullptr;

TEST_F(OffloadIoTest, FolderHoldsTheOffloadAndItsModule) {
  EXPECT_TRUE(fs::exists(*saved_ / "kernels.so"));
  EXPECT_TRUE(fs::exists(*saved_ / "kernels.vdla.json"));
  const json j = ReadJsonFile(*saved_ / "model.json");
  EXPECT_EQ(j.at("version"), 3);
  EXPECT_EQ(j.at("offload").at("facts"), target::FactsToJson(*model_->offload));
  EXPECT_EQ(j.at("offload").at("library"), "kernels.vdla.json");
  ASSERT_EQ(j.at("kernels").size(), model_->kernels.size());
  for (size_t k = 0; k < model_->kernels.size(); ++k) {
    EXPECT_EQ(j["kernels"][k].at("offloaded").get<bool>(), model_->kernels[k].offloaded) << k;
  }
}

TEST_F(OffloadIoTest, LoadedModelRunsItsOffloadedKernelsOnVdlaBitForBit) {
  absl::StatusOr<CompiledModel> loaded = CompiledModel::Load(saved_->string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->offload.has_value());
  EXPECT_EQ(target::FactsToJson(*loaded->offload), target::FactsToJson(*model_->offload));
  ASSERT_TRUE(loaded->offload_module.defined());
  EXPECT_EQ(loaded->offload_module.kind(), "vdla");
  ASSERT_EQ(loaded->kernels.size(), model_->kernels.size());
  for (size_t k = 0; k < model_->kernels.size(); ++k) {
    EXPECT_EQ(loaded->kernels[k].offloaded, model_->kernels[k].offloaded) << k;
  }
  EXPECT_EQ(loaded->NumOffloaded(), model_->NumOffloaded());

  const int offloaded_steps = OffloadedSteps(*loaded);
  ASSERT_GT(offloaded_steps, 0);
  const std::vector<NDArray> want = RunOnce(*model_, resnet_->inputs);
  const runtime::vdla::RunTotals before = runtime::vdla::Totals();
  const std::vector<NDArray> got = RunOnce(*loaded, resnet_->inputs);
  const runtime::vdla::RunTotals after = runtime::vdla::Totals();
  EXPECT_EQ(after.runs - before.runs, offloaded_steps);
  EXPECT_GT(after.macs, before.macs);
  ExpectBitForBit(got, want);
}

TEST_F(OffloadIoTest, MissingOrMalformedOffloadIsNamed) {
  {
    const fs::path dir = Copy("no_offload_file");
    fs::remove(dir / "kernels.vdla.json");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "kernels.vdla.json").string()));
  }
  {
    const fs::path dir = Copy("bad_offload_file");
    Overwrite(dir / "kernels.vdla.json", "[1, 2");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "kernels.vdla.json").string() + ": "));
  }
  {
    const fs::path dir = Copy("offload_function_missing");
    json module = ReadJsonFile(dir / "kernels.vdla.json");
    module["signatures"].erase(0);
    module["programs"].erase(0);
    Overwrite(dir / "kernels.vdla.json", module.dump());
    EXPECT_THAT(LoadError(dir),
                HasSubstr((dir / "kernels.vdla.json").string() + ": no function '"));
  }
  const std::string model_json = "model.json: ";
  EXPECT_THAT(LoadError(EditModel("offload_not_object", [](json& j) { j["offload"] = "vdla"; })),
              HasSubstr(model_json + "offload: "));
  EXPECT_THAT(LoadError(EditModel("offload_bad_facts",
                                  [](json& j) { j["offload"]["facts"]["cores"] = "many"; })),
              HasSubstr(model_json + "offload.facts.cores"));
  EXPECT_THAT(LoadError(EditModel("offload_bad_target",
                                  [](json& j) { j["offload"]["facts"]["target"] = "rocm"; })),
              HasSubstr(model_json + "offload.facts.target"));
  size_t first = 0;
  while (!model_->kernels[first].offloaded) ++first;
  EXPECT_THAT(LoadError(EditModel("offload_erased", [](json& j) { j.erase("offload"); })),
              HasSubstr(absl::StrCat(model_json, "kernels[", first,
                                     "]: offloaded, but the model names no offload library")));
  EXPECT_THAT(
      LoadError(EditModel("bad_flag", [&](json& j) { j["kernels"][first]["offloaded"] = "yes"; })),
      HasSubstr(absl::StrCat(model_json, "kernels[", first, "]: ")));
}

// A model without an offload is the format as it was (version 2, no offload keys); a model with
// an offload that takes none of its kernels keeps the offload's facts without a library.
TEST(OffloadIoFormatTest, WithoutOffloadedKernels) {
  absl::StatusOr<testing::TestGraph> tiny = testing::TinyGraph();
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  absl::StatusOr<CompiledModel> plain = Compile(tiny->graph, target::Target::Llvm(), nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const fs::path plain_dir = TempDir("plain");
  ASSERT_TRUE(plain->Save(plain_dir.string()).ok());
  const json pj = ReadJsonFile(plain_dir / "model.json");
  EXPECT_EQ(pj.at("version"), 2);
  EXPECT_FALSE(pj.contains("offload"));
  for (const json& k : pj.at("kernels")) EXPECT_FALSE(k.contains("offloaded")) << k.dump();
  absl::StatusOr<CompiledModel> plain_loaded = CompiledModel::Load(plain_dir.string());
  ASSERT_TRUE(plain_loaded.ok()) << plain_loaded.status();
  EXPECT_FALSE(plain_loaded->offload.has_value());

  // Float convolutions: VDLA takes none.
  absl::StatusOr<CompiledModel> none =
      Compile(tiny->graph, target::Target::Llvm(), nullptr, {.offload = "vdla"});
  ASSERT_TRUE(none.ok()) << none.status();
  ASSERT_EQ(none->NumOffloaded(), 0);
  const fs::path none_dir = TempDir("none_offloaded");
  ASSERT_TRUE(none->Save(none_dir.string()).ok());
  const json nj = ReadJsonFile(none_dir / "model.json");
  EXPECT_EQ(nj.at("version"), 3);
  EXPECT_EQ(nj.at("offload").at("facts"), target::FactsToJson(*none->offload));
  EXPECT_FALSE(nj.at("offload").contains("library"));
  EXPECT_FALSE(fs::exists(none_dir / "kernels.vdla.json"));
  absl::StatusOr<CompiledModel> none_loaded = CompiledModel::Load(none_dir.string());
  ASSERT_TRUE(none_loaded.ok()) << none_loaded.status();
  ASSERT_TRUE(none_loaded->offload.has_value());
  EXPECT_FALSE(none_loaded->offload_module.defined());
  ExpectBitForBit(RunOnce(*none_loaded, tiny->inputs), RunOnce(*plain_loaded, tiny->inputs));
}

}  // namespace
}  // namespace tessel::driver
