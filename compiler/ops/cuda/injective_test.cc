// The GPU injective templates against libtorch: every "<op>.gpu" (cast between float32, float64,
// int32 and int64 included) on a few shapes (broadcasting, odd and prime sizes, 7 x 7 planes,
// tensors of a million elements and more) with the fallback and 20 random configs on OpenCL
// (PoCL, on this machine's CPU), the fallback of each through NVRTC and ptxas for sm_90 (skipped
// without the CUDA toolkit), the knobs the fallback picks, and the argument errors of each family.
#include <gtest/gtest.h>

#include <tuple>

#include "compiler/ir/printer.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/template.h"
#include "compiler/ops/testing/op_check.h"
#include "compiler/ops/testing/tail_check.h"
#include "compiler/target/target_facts.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::cuda {
namespace {

using testing::CheckFallback;
using testing::CheckOptions;
using testing::CheckRandomConfigs;

const Template& Get(const std::string& op) {
  absl::StatusOr<const Template*> t = FindTemplate(op + ".gpu");
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

CheckOptions On(const std::string& target) {
  return {.target = tessel::testing::ParseTarget(target)};
}

struct Case {
  std::string op;
  OpArgs args;
};

std::string Describe(const Case& c) { return c.op + " " + c.args.dump(); }

OpArgs Binary(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  return {{"a_shape", a}, {"b_shape", b}};
}

// Shapes for every template: small and odd ones, 7 x 7 planes, and large ones.
std::vector<Case> FallbackCases() {
  std::vector<Case> cases;
  for (const nn::UnaryOp& unary : nn::UnaryOps()) {
    const std::string op = unary.name;
    // Three shapes for the activations networks use most, one for the others (each case is a
    // device compile).
    const bool common =
        op == "relu" || op == "sigmoid" || op == "tanh" || op == "leaky_relu" || op == "clip";
    std::vector<OpArgs> shapes = {{1, 13, 7, 7}};
    if (common) shapes.insert(shapes.begin(), {{7}, {2, 3, 1, 1}});
    if (op == "relu" || op == "sigmoid") shapes.push_back({1, 64, 112, 112});
    for (const OpArgs& shape : shapes) {
      OpArgs args = {{"shape", shape}};
      if (op == "leaky_relu") args["alpha"] = 0.2;
      if (op == "clip") args["min"] = -0.5, args["max"] = 1.25;
      cases.push_back({op, args});
    }
  }
  // Every kind of broadcasting for add; two for the others.
  for (const auto& [a, b] : std::vector<std::pair<OpArgs, OpArgs>>{
           {{2, 3, 5}, {2, 3, 5}},
           {{4, 7, 9}, {1}},
           {{1}, {4, 7, 9}},
           {{2, 16, 7, 7}, {16, 1, 1}},
           {{3, 1, 5}, {1, 4, 1}},
           {{5, 1}, {1, 6}},
           {{1, 3, 1, 11}, {2, 1, 13, 11}},
           {{1, 1}, {1, 1}},
           {{8, 256, 28, 28}, {8, 256, 28, 28}},
       }) {
    cases.push_back({"add", {{"a_shape", a}, {"b_shape", b}}});
  }
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    if (op == "add") continue;
    cases.push_back({op, Binary({2, 16, 7, 7}, {16, 1, 1})});
    cases.push_back({op, Binary({6, 5}, {4, 1, 6, 5})});
  }
  cases.push_back({"concatenate", {{"shapes", {{2, 3, 5}, {2, 7, 5}, {2, 1, 5}}}, {"axis", 1}}});
  cases.push_back({"concatenate", {{"shapes", {{1, 16, 7, 7}, {1, 32, 7, 7}}}, {"axis", 1}}});
  cases.push_back({"concatenate", {{"shapes", {{3}, {1}, {17}}}, {"axis", 0}}});
  cases.push_back({"reshape", {{"shape", {2, 3, 17}}, {"newshape", {-1, 2, 17}}}});
  cases.push_back({"reshape", {{"shape", {4, 256, 32, 32}}, {"newshape", {1024, -1}}}});
  cases.push_back({"flatten", {{"shape", {1, 512, 7, 7}}}});
  cases.push_back({"flatten", {{"shape", {2, 3, 4, 5}}, {"axis", 2}}});
  cases.push_back({"transpose", {{"shape", {2, 3, 17}}, {"axes", {2, 0, 1}}}});
  cases.push_back({"transpose", {{"shape", {1, 8, 7, 7}}, {"axes", {0, 2, 3, 1}}}});
  cases.push_back({"transpose", {{"shape", {64, 96, 33}}, {"axes", {1, 0, 2}}}});
  cases.push_back({"pad",
                   {{"shape", {1, 3, 7, 7}},
                    {"pad_before", {0, 0, 1, 2}},
                    {"pad_after", {0, 0, 2, 1}},
                    {"value", -1.5}}});
  cases.push_back({"pad", {{"shape", {5, 11}}, {"pad_before", {1, 0}}, {"pad_after", {2, 0}}}});
  cases.push_back(
      {"layout_transform", {{"shape", {1, 32, 7, 7}}, {"src", "NCHW"}, {"dst", "NCHW8c"}}});
  cases.push_back(
      {"layout_transform", {{"shape", {2, 2, 5, 3, 16}}, {"src", "NCHW16c"}, {"dst", "NCHW4c"}}});
  cases.push_back(
      {"layout_transform", {{"shape", {1, 4, 3, 3, 8}}, {"src", "NCHW8c"}, {"dst", "NCHW"}}});
  cases.push_back({"take", {{"data_shape", {1000, 650}}, {"indices_shape", {35, 1}}}});
  cases.push_back({"take", {{"data_shape", {7, 5, 33}}, {"indices_shape", {4}}, {"axis", 1}}});
  cases.push_back({"take", {{"data_shape", {6, 40}}, {"indices_shape", {3, 5}}, {"axis", -1}}});
  // Float to integer truncation, the int64 wrap, int64 and float64 loads and stores.
  for (const auto& [shape, from, to] : std::vector<std::tuple<OpArgs, std::string, std::string>>{
           {{2, 3, 17}, "float32", "int32"},
           {{1, 13, 7, 7}, "int64", "float32"},
           {{1001}, "int32", "int64"},
           {{3, 7, 29}, "float32", "float64"},
           {{64, 5}, "int64", "int32"},
           {{9, 7}, "float64", "int64"},
       }) {
    cases.push_back({"cast", {{"shape", shape}, {"from", from}, {"to", to}}});
  }
  cases.push_back({"batch_norm", {{"n", 1}, {"c", 64}, {"h", 56}, {"w", 56}}});
  cases.push_back({"batch_norm", {{"n", 2}, {"c", 3}, {"h", 7}, {"w", 7}, {"epsilon", 1e-3}}});
  cases.push_back({"batch_norm", {{"n", 1}, {"c", 13}, {"h", 1}, {"w", 1}}});
  return cases;
}

// One shape per template with a ragged last block for every thread count (no power of two
// above 4 divides the element count); most counts are even or multiples of 4, so that vectors
// of 2 or 4 elements get drawn too.
std::vector<Case> RandomCases() {
  return {
      {"relu", {{"shape", {3, 7, 28}}}},
      {"leaky_relu", {{"shape", {5, 300}}, {"alpha", 0.1}}},
      {"sigmoid", {{"shape", {2, 9, 7, 7}}}},
      {"tanh", {{"shape", {1001}}}},
      {"clip", {{"shape", {3, 7, 29}}, {"min", -0.3}, {"max", 0.4}}},
      {"add", Binary({2, 16, 5, 9}, {16, 1, 1})},
      {"subtract", Binary({3, 1, 37}, {4, 1})},
      {"multiply", Binary({7, 1}, {1, 13})},
      {"divide", Binary({2, 16, 5, 9}, {9})},
      {"maximum", Binary({6, 5, 7}, {6, 5, 7})},
      {"minimum", Binary({1, 3, 7, 7}, {2, 3, 1, 1})},
      {"concatenate", {{"shapes", {{2, 3, 42}, {2, 5, 42}}}, {"axis", 1}}},
      {"reshape", {{"shape", {5, 21}}, {"newshape", {3, 35}}}},
      {"flatten", {{"shape", {3, 7, 4}}, {"axis", 2}}},
      {"transpose", {{"shape", {6, 5, 33}}, {"axes", {2, 0, 1}}}},
      {"pad", {{"shape", {2, 5, 9}}, {"pad_before", {0, 2, 1}}, {"pad_after", {1, 0, 3}}}},
      {"layout_transform", {{"shape", {2, 16, 3, 5}}, {"src", "NCHW"}, {"dst", "NCHW4c"}}},
      {"take", {{"data_shape", {4, 10, 37}}, {"indices_shape", {3, 2}}, {"axis", 1}}},
      {"cast", {{"shape", {3, 7, 28}}, {"from", "float32"}, {"to", "int32"}}},
      {"batch_norm", {{"n", 2}, {"c", 5}, {"h", 9}, {"w", 12}}},
  };
}

// Per template (so that shards share the work): its fallback on each of its FallbackCases,
// then 20 random configs of its RandomCases entry.
class GpuInjectiveOpenClTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuInjectiveOpenClTest, FallbackAndRandomConfigs) {
  const Case& random = GetParam();
  for (const Case& c : FallbackCases()) {
    if (c.op != random.op) continue;
    absl::Status s = CheckFallback(Get(c.op), c.args, On("opencl"));
    EXPECT_TRUE(s.ok()) << Describe(c) << ": " << s;
  }
  absl::Status s = CheckRandomConfigs(Get(random.op), random.args, 20, On("opencl"));
  EXPECT_TRUE(s.ok()) << Describe(random) << ": " << s;
}

INSTANTIATE_TEST_SUITE_P(EveryTemplate, GpuInjectiveOpenClTest, ::testing::ValuesIn(RandomCases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.op; });

// With a fused tail (a fusion group without a master, led by its first element-wise node), on
// OpenCL: a flat output large enough for the fallback's vectors, a view split by the tail's
// per-channel bias, and a broadcasting binary operator; then the first through ptxas.
TEST(GpuInjectiveTest, TailsOverViews) {
  const std::vector<Case> cases = {{"relu", {{"shape", {1, 64, 64, 64}}}},
                                   {"sigmoid", {{"shape", {2, 13, 7, 7}}}},
                                   {"multiply", Binary({2, 16, 7, 7}, {16, 1, 1})},
                                   {"subtract", Binary({3, 1, 5}, {1, 4, 1})}};
  for (const Case& c : cases) {
    absl::Status s = testing::CheckTailRandomConfigs(Get(c.op), c.args, 3, On("opencl"));
    EXPECT_TRUE(s.ok()) << Describe(c) << ": " << s;
  }
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  absl::Status s =
      testing::CheckTailRandomConfigs(Get(cases[0].op), cases[0].args, 1, On("cuda -arch=sm_90"));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(GpuInjectiveTest, FallbackThroughPtxas) {
#ifdef TESSEL_CUDA_MISSING
  GTEST_SKIP() << "no CUDA toolkit: " << TESSEL_CUDA_MISSING;
#endif
  for (const Case& c : RandomCases()) {
    absl::Status s = CheckFallback(Get(c.op), c.args, On("cuda -arch=sm_90"));
    EXPECT_TRUE(s.ok()) << Describe(c) << ": " << s;
  }
  // float4 vectors on a large tensor.
  absl::Status s = CheckFallback(Get("relu"), {{"shape", {8, 64, 56, 56}}}, On("cuda -arch=sm_90"));
  EXPECT_TRUE(s.ok()) << s;
}

search::Config Fallback(const std::string& op, const OpArgs& args, const std::string& target) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget(target));
  absl::StatusOr<search::ConfigSpace> space = Get(op).space(args, facts);
  EXPECT_TRUE(space.ok()) << space.status();
  return Get(op).fallback(*space, args, facts);
}

TEST(GpuInjectiveTest, FallbackKnobs) {
  // 256 threads on a GPU allowing 1024; one element per thread on a small tensor.
  search::Config c = Fallback("relu", {{"shape", {3, 7, 29}}}, "cuda -arch=sm_90");
  EXPECT_EQ(c.knob("threads"), 256);
  EXPECT_EQ(c.knob("per_thread"), 1);
  // A large contiguous tensor: float4 per thread.
  c = Fallback("add", Binary({8, 64, 56, 56}, {8, 64, 56, 56}), "opencl");
  EXPECT_EQ(c.knob("per_thread"), 4);
  EXPECT_EQ(c.knob("vector"), 1);
  // Large, but an input is read through a division (a per-channel operand): one per thread.
  c = Fallback("add", Binary({8, 64, 56, 56}, {64, 1, 1}), "opencl");
  EXPECT_EQ(c.knob("per_thread"), 1);
}

std::string Lowered(const std::string& op, const OpArgs& args, const nlohmann::json& knobs) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  absl::StatusOr<search::ConfigSpace> space = Get(op).space(args, facts);
  EXPECT_TRUE(space.ok()) << space.status();
  absl::StatusOr<search::Config> config = space->FromJson({{"knobs", knobs}});
  EXPECT_TRUE(config.ok()) << config.status();
  absl::StatusOr<OpProgram> p = Get(op).instantiate(*config, args, facts);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(p->schedule, p->args, op);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? ir::ToString(*f) : "";
}

TEST(GpuInjectiveTest, VectorsStayVectorsInRaggedBlocks) {
  // 802816 elements in whole blocks: float4 loads and stores, no guard.
  std::string ir = Lowered("relu", {{"shape", {1, 64, 112, 112}}},
                           {{"threads", 256}, {"per_thread", 4}, {"vector", 1}});
  EXPECT_NE(ir.find("relu_lanes[ramp(((i.inner * 4) + (i.outer * 1024)), 1, 4)] = "
                    "max(x[ramp(((i.inner * 4) + (i.outer * 1024)), 1, 4)]"),
            std::string::npos)
      << ir;
  EXPECT_EQ(ir.find("if ("), std::string::npos) << ir;
  // 588 = 147 vectors over blocks of 64 threads: the guard tests the vector's row only, and the
  // accesses stay vectors.
  ir =
      Lowered("relu", {{"shape", {3, 7, 28}}}, {{"threads", 64}, {"per_thread", 4}, {"vector", 1}});
  EXPECT_NE(ir.find("if (((i.inner + (i.outer * 64)) < 147)) {\n"
                    "        relu_lanes[ramp(((i.inner * 4) + (i.outer * 256)), 1, 4)]"),
            std::string::npos)
      << ir;
}

void ExpectError(const std::string& op, const OpArgs& args, const std::string& key) {
  const target::TargetFacts facts = *target::DescribeTarget(tessel::testing::ParseTarget("opencl"));
  absl::StatusOr<search::ConfigSpace> space = Get(op).space(args, facts);
  ASSERT_FALSE(space.ok()) << op << " " << args.dump();
  EXPECT_NE(space.status().message().find(op + ".gpu: "), std::string::npos)
      << space.status().message();
  EXPECT_NE(space.status().message().find("'" + key + "'"), std::string::npos)
      << space.status().message();
}

TEST(GpuInjectiveTest, ArgumentErrors) {
  ExpectError("relu", {{"shape", {2, 0}}}, "shape");
  ExpectError("clip", {{"shape", {2}}, {"min", 1}, {"max", 0}}, "min");
  ExpectError("add", {{"a_shape", {2, 3}}, {"b_shape", {4}}}, "a_shape");
  ExpectError("concatenate", {{"shapes", {{2, 3}, {3, 3}}}, {"axis", 1}}, "shapes");
  ExpectError("transpose", {{"shape", {2, 3}}, {"axes", {0, 0}}}, "axes");
  ExpectError("take", {{"data_shape", {2, 3}}, {"indices_shape", {4}}, {"axis", 2}}, "axis");
  ExpectError("batch_norm", {{"n", 1}, {"c", 3}, {"h", 4}, {"w", 4}, {"epsilon", -1}}, "epsilon");
  ExpectError("cast", {{"shape", {2}}, {"from", "float16"}, {"to", "int32"}}, "from");
  // A target without a GPU.
  absl::StatusOr<search::ConfigSpace> space =
      Get("relu").space({{"shape", {4}}}, target::TargetFacts{});
  ASSERT_FALSE(space.ok());
  EXPECT_NE(space.status().message().find("relu.gpu: needs a GPU target"), std::string::npos)
      << space.status().message();
}

}  // namespace
}  // namespace tessel::ops::cuda
