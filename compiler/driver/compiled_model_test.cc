// Saved models: Save -> Load -> Run gives the same outputs; a missing or corrupted file is an error
// naming it; a save replaces only a compiled model and leaves nothing half-written.
#include "compiler/driver/compiled_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "compiler/driver/compile_model.h"
#include "compiler/driver/model_folder_testing.h"
#include "compiler/driver/test_graphs.h"
#include "compiler/graph/builder.h"
#include "compiler/ops/op_runner.h"
#include "compiler/runtime/npy.h"
#include "compiler/target/facts_json.h"

namespace tessel::driver {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing::LoadError;
using testing::Overwrite;
using testing::TempDir;

// Both models run on `inputs` and give bit-identical outputs.
void ExpectSameOutputs(const CompiledModel& want_model, const CompiledModel& got_model,
                       const std::vector<runtime::NDArray>& inputs) {
  absl::StatusOr<runtime::GraphExecutor> a = MakeExecutor(want_model);
  absl::StatusOr<runtime::GraphExecutor> b = MakeExecutor(got_model);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  absl::StatusOr<std::vector<runtime::NDArray>> want = a->Run(inputs);
  absl::StatusOr<std::vector<runtime::NDArray>> got = b->Run(inputs);
  ASSERT_TRUE(want.ok() && got.ok()) << want.status() << got.status();
  EXPECT_TRUE(ops::CompareOutputs(*got, *want, {.atol = 0, .rtol = 0}).ok());
}

class SavedModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<testing::TestGraph> t = testing::TinyGraph();
    ASSERT_TRUE(t.ok()) << t.status();
    tiny_ = new testing::TestGraph(*std::move(t));
    absl::StatusOr<CompiledModel> m = Compile(tiny_->graph, target::Target::Llvm(), nullptr);
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = new CompiledModel(*std::move(m));
    saved_ = new fs::path(TempDir("saved"));
    absl::Status s = model_->Save(saved_->string());
    ASSERT_TRUE(s.ok()) << s;
  }

  // A copy of the saved folder to damage.
  static fs::path Copy(const std::string& name) { return testing::CopyFolder(*saved_, name); }

  static testing::TestGraph* tiny_;
  static CompiledModel* model_;
  static fs::path* saved_;
};

testing::TestGraph* SavedModelTest::tiny_ = nullptr;
CompiledModel* SavedModelTest::model_ = nullptr;
fs::path* SavedModelTest::saved_ = nullptr;

TEST_F(SavedModelTest, LoadedModelRunsTheSame) {
  for (const char* file : {"model.json", "graph.json", "kernels.so", "constants/0.npy"}) {
    EXPECT_TRUE(fs::exists(*saved_ / file)) << file;
  }
  absl::StatusOr<CompiledModel> loaded = CompiledModel::Load(saved_->string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->facts.target, model_->facts.target);
  EXPECT_EQ(target::FactsToJson(loaded->facts), target::FactsToJson(model_->facts));
  EXPECT_EQ(loaded->warnings, model_->warnings);
  ASSERT_EQ(loaded->kernels.size(), model_->kernels.size());
  for (size_t k = 0; k < model_->kernels.size(); ++k) {
    EXPECT_EQ(loaded->kernels[k].function, model_->kernels[k].function);
    EXPECT_EQ(loaded->kernels[k].task, model_->kernels[k].task);
    EXPECT_TRUE(loaded->kernels[k].config == model_->kernels[k].config);
  }
  ExpectSameOutputs(*model_, *loaded, tiny_->inputs);
}

// Element-wise groups without a master (one kernel each, led by an element-wise node) come back
// with their tails rebuilt from the graph and compute the same.
TEST_F(SavedModelTest, ElementwiseGroupsRoundTrip) {
  absl::StatusOr<testing::TestGraph> t = testing::LstmGatesGraph();
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<CompiledModel> m = Compile(t->graph, target::Target::Llvm(), nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->NumFusedSteps(), 2);
  const fs::path dir = TempDir("elementwise_groups");
  ASSERT_TRUE(m->Save(dir.string()).ok());
  absl::StatusOr<CompiledModel> loaded = CompiledModel::Load(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->steps.size(), m->steps.size());
  for (size_t i = 0; i < m->steps.size(); ++i) {
    EXPECT_EQ(loaded->steps[i].master, m->steps[i].master);
    EXPECT_EQ(loaded->kernels[static_cast<size_t>(loaded->steps[i].kernel)].tail,
              m->kernels[static_cast<size_t>(m->steps[i].kernel)].tail);
  }
  ExpectSameOutputs(*m, *loaded, t->inputs);
}

TEST_F(SavedModelTest, ConvolutionModelRoundTrips) {
  absl::StatusOr<testing::TestGraph> t = testing::ConvolutionGraph();
  ASSERT_TRUE(t.ok());
  absl::StatusOr<CompiledModel> m = Compile(t->graph, target::Target::Llvm(), nullptr);
  ASSERT_TRUE(m.ok()) << m.status();
  const fs::path dir = TempDir("conv_model");
  ASSERT_TRUE(m->Save(dir.string()).ok());
  absl::StatusOr<CompiledModel> loaded = CompiledModel::Load(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameOutputs(*m, *loaded, t->inputs);
}

// A residual block: conv -> bias -> relu -> conv -> bias -> add x -> relu, then the same block
// again (so kernels are shared).
testing::TestGraph ResidualBlocks() {
  graph::Builder b;
  graph::ValueId x = b.Input("x", {{1, 16, 8, 8}});
  auto constant = [&](const std::string& name, const std::vector<int64_t>& shape, uint32_t seed) {
    return b.Constant(name, testing::RandomArray(shape, graph::kFloat32, -0.3, 0.3, seed));
  };
  uint32_t seed = 1;
  for (const char* block : {"a", "b"}) {
    const std::string p = block;
    graph::ValueId y = b.Op("conv2d", {x, constant(p + ".w1", {16, 16, 3, 3}, seed++)},
                            {{"pad", {1, 1, 1, 1}}}, p + ".conv1");
    y = b.Op("add", {y, constant(p + ".b1", {16, 1, 1}, seed++)}, {}, p + ".bias1");
    y = b.Op("relu", {y}, {}, p + ".relu1");
    y = b.Op("conv2d", {y, constant(p + ".w2", {16, 16, 3, 3}, seed++)}, {{"pad", {1, 1, 1, 1}}},
             p + ".conv2");
    y = b.Op("add", {y, constant(p + ".b2", {16, 1, 1}, seed++)}, {}, p + ".bias2");
    y = b.Op("add", {y, x}, {}, p + ".residual");
    x = b.Op("relu", {y}, {}, p + ".relu2");
  }
  b.Output(x);
  absl::StatusOr<graph::Graph> g = b.Finish();
  EXPECT_TRUE(g.ok()) << g.status();
  return {*std::move(g), {testing::RandomArray({1, 16, 8, 8}, graph::kFloat32, -1, 1, 99)}};
}

// An optimized model with fused tails (the residual too) and a memory plan comes back whole.
TEST_F(SavedModelTest, OptimizedModelRoundTrips) {
  const testing::TestGraph t = ResidualBlocks();
  absl::StatusOr<CompiledModel> m = Compile(t.graph, target::Target::Llvm(), nullptr,
                                            {.strided_tail_inputs = StridedTailInputs::kAlways});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->steps.size(), 6u);  // the layout pass's transforms in and out, and four kernels
  EXPECT_EQ(m->NumFusedSteps(), 4);
  EXPECT_LT(m->memory.peak_bytes, m->memory.naive_bytes);
  const fs::path dir = TempDir("optimized_model");
  ASSERT_TRUE(m->Save(dir.string()).ok());
  absl::StatusOr<CompiledModel> loaded = CompiledModel::Load(dir.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->steps.size(), m->steps.size());
  for (size_t i = 0; i < m->steps.size(); ++i) {
    const CompiledStep& a = m->steps[i];
    const CompiledStep& b = loaded->steps[i];
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.master, b.master);
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.inputs, b.inputs);
    EXPECT_EQ(a.outputs, b.outputs);
    EXPECT_EQ(a.result_mode, b.result_mode);
    EXPECT_EQ(a.blocked, b.blocked);
  }
  int tails = 0;
  for (size_t k = 0; k < m->kernels.size(); ++k) {
    EXPECT_EQ(loaded->kernels[k].tail, m->kernels[k].tail);
    tails += !loaded->kernels[k].tail.empty();
  }
  EXPECT_EQ(tails, 2);  // with and without the residual; the blocks share them
  EXPECT_EQ(loaded->memory.storage_of, m->memory.storage_of);
  EXPECT_EQ(loaded->memory.value_bytes, m->memory.value_bytes);
  EXPECT_EQ(loaded->memory.storage_bytes, m->memory.storage_bytes);
  EXPECT_EQ(loaded->memory.peak_bytes, m->memory.peak_bytes);
  EXPECT_EQ(loaded->memory.naive_bytes, m->memory.naive_bytes);
  ExpectSameOutputs(*m, *loaded, t.inputs);

  // A kernel's tail that its step's nodes do not make is an error naming the step.
  fs::path bad = TempDir("bad_tail");
  fs::copy(dir, bad, fs::copy_options::recursive);
  std::ifstream in(bad / "model.json");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str());
  const size_t fused = 1;  // steps[0] is the layout transform into the blocks
  ASSERT_GT(m->steps[fused].nodes.size(), 1u);
  j["kernels"][m->steps[fused].kernel]["tail"] = "relu(v) ";
  Overwrite(bad / "model.json", j.dump());
  EXPECT_THAT(LoadError(bad), HasSubstr("steps[1]: its nodes make the tail"));
}

TEST_F(SavedModelTest, MissingOrCorruptFilesAreNamed) {
  {
    fs::path dir = Copy("no_param");
    ASSERT_TRUE(fs::exists(dir / "parameters"));
    fs::path victim;
    for (const auto& e : fs::directory_iterator(dir / "parameters")) victim = e.path();
    ASSERT_FALSE(victim.empty());
    fs::remove(victim);
    EXPECT_THAT(LoadError(dir), HasSubstr(victim.string()));
  }
  {
    fs::path dir = Copy("bad_json");
    Overwrite(dir / "model.json", "{\"format\": ");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "model.json").string() + ": not valid JSON"));
  }
  {
    fs::path dir = Copy("no_graph");
    fs::remove(dir / "graph.json");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "graph.json").string()));
  }
  {
    fs::path dir = Copy("bad_library");
    Overwrite(dir / "kernels.so", "not a library");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "kernels.so").string()));
  }
  {
    fs::path dir = Copy("bad_constant");
    ASSERT_TRUE(runtime::SaveNpy((dir / "constants/0.npy").string(),
                                 testing::RandomArray({3}, graph::kFloat32, 0, 1, 1))
                    .ok());
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "constants/0.npy").string()));
  }
  {
    fs::path dir = Copy("bad_parameter");
    fs::path victim;
    for (const auto& e : fs::directory_iterator(dir / "parameters")) victim = e.path();
    ASSERT_TRUE(
        runtime::SaveNpy(victim.string(), testing::RandomArray({3}, graph::kFloat32, 0, 1, 1))
            .ok());
    EXPECT_THAT(LoadError(dir), HasSubstr(victim.string() + ": parameter"));
  }
  {
    fs::path dir = Copy("truncated_npy");
    Overwrite(dir / "constants/0.npy", "\x93NUMPY");
    EXPECT_THAT(LoadError(dir), HasSubstr((dir / "constants/0.npy").string()));
  }
  {
    fs::path dir = Copy("wrong_format");
    Overwrite(dir / "model.json", R"({"format": "something else", "version": 1})");
    EXPECT_THAT(LoadError(dir), HasSubstr("not a tessel-compiled-model"));
  }
  auto edit_model = [&](const std::string& name, const std::function<void(nlohmann::json&)>& f) {
    fs::path dir = Copy(name);
    std::ifstream in(dir / "model.json");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(text.str());
    f(j);
    Overwrite(dir / "model.json", j.dump());
    return dir;
  };
  EXPECT_THAT(LoadError(edit_model("bad_memory",
                                   [](nlohmann::json& j) { j["memory"]["storage_of"].erase(0); })),
              HasSubstr("model.json: memory: "));
  EXPECT_THAT(
      LoadError(edit_model("bad_step", [](nlohmann::json& j) { j["steps"][0]["nodes"] = {999}; })),
      HasSubstr("model.json: steps[0]: its nodes and master do not match"));
  EXPECT_THAT(LoadError(edit_model("bad_mode",
                                   [](nlohmann::json& j) { j["steps"][0]["result_mode"] = "x"; })),
              HasSubstr("unknown result mode 'x'"));
  EXPECT_THAT(LoadError(TempDir("nothing_here")), HasSubstr("is not a folder"));
}

TEST_F(SavedModelTest, SaveReplacesOnlyAModelAndLeavesNoTemporaries) {
  const fs::path parent = TempDir("replace");
  fs::create_directories(parent / "not_a_model");
  std::ofstream(parent / "not_a_model" / "keep.txt") << "mine";
  absl::Status refused = model_->Save((parent / "not_a_model").string());
  EXPECT_THAT(std::string(refused.message()), HasSubstr("is not a compiled model"));
  EXPECT_TRUE(fs::exists(parent / "not_a_model" / "keep.txt"));

  const fs::path dir = parent / "model";
  ASSERT_TRUE(model_->Save(dir.string()).ok());
  std::ofstream(dir / "stale.txt") << "from the first save";
  ASSERT_TRUE(model_->Save(dir.string() + "/").ok());
  EXPECT_FALSE(fs::exists(dir / "stale.txt"));
  EXPECT_TRUE(CompiledModel::Load(dir.string()).ok());
  int entries = 0;
  for (const auto& e : fs::directory_iterator(parent)) {
    ++entries;
    EXPECT_TRUE(e.path().filename() == "model" || e.path().filename() == "not_a_model") << e.path();
  }
  EXPECT_EQ(entries, 2);
}

}  // namespace
}  // namespace tessel::driver
