#include "compiler/target/target_facts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "compiler/target/facts_json.h"

namespace tessel::target {
namespace {

using ::testing::HasSubstr;

Target Parsed(const std::string& text) {
  absl::StatusOr<Target> t = Target::Parse(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Target::Llvm();
}

TargetFacts Facts(const std::string& text) {
  absl::StatusOr<TargetFacts> f = DescribeTarget(Parsed(text));
  EXPECT_TRUE(f.ok()) << text << ": " << f.status();
  return f.ok() ? *f : TargetFacts{};
}

// A file in the test's temporary folder holding text.
std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(TargetFactsTest, VectorWidthComesFromTheNamedCpu) {
  // Intel's published register files: AVX2 has 16 ymm registers, AVX-512 32 zmm ones.
  const TargetFacts haswell = Facts("llvm -mcpu=haswell");
  EXPECT_EQ(haswell.vector_bits, 256);
  EXPECT_EQ(haswell.vector_registers, 16);
  EXPECT_EQ(haswell.lanes(), 8);
  const TargetFacts skylake = Facts("llvm -mcpu=skylake-avx512");
  EXPECT_EQ(skylake.vector_bits, 512);
  EXPECT_EQ(skylake.vector_registers, 32);
  EXPECT_EQ(Facts("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a53").vector_bits, 128);
  EXPECT_EQ(skylake.target, Parsed("llvm -mcpu=skylake-avx512"));
  EXPECT_FALSE(skylake.gpu.has_value());
  EXPECT_FALSE(skylake.vdla.has_value());
}

TEST(TargetFactsTest, CoresFromTheTargetNotTheProcess) {
  EXPECT_EQ(Facts("llvm -num-cores=3").cores, 3);
  EXPECT_EQ(Facts("llvm").cores, static_cast<int>(std::thread::hardware_concurrency()));
  // Another machine's cores are unknown unless the target says.
  EXPECT_EQ(Facts("llvm -mtriple=aarch64-linux-gnu").cores, 1);
  EXPECT_EQ(Facts("llvm -mtriple=aarch64-linux-gnu -num-cores=4").cores, 4);
  EXPECT_THAT(std::string(Target::Parse("llvm -num-cores=0").status().message()),
              HasSubstr("-num-cores=0' must be a number of threads"));
}

TEST(TargetFactsTest, GpuLimitsPerKind) {
  const TargetFacts cuda = Facts("cuda -arch=sm_80");
  ASSERT_TRUE(cuda.gpu.has_value());
  // CUDA's limits for compute capability 5.0 and later (the CUDA C++ Programming Guide).
  EXPECT_EQ(cuda.gpu->max_threads_per_block, 1024);
  EXPECT_EQ(cuda.gpu->warp_size, 32);
  EXPECT_EQ(cuda.gpu->shared_memory_per_block, 48 * 1024);
  EXPECT_EQ(cuda.gpu->registers_per_thread, 255);
  EXPECT_EQ(cuda.gpu->registers_per_block, 65536);
  // The host side: the default host is this machine.
  EXPECT_EQ(cuda.vector_bits, Facts("llvm").vector_bits);
  EXPECT_EQ(Facts("cuda -host='llvm -mcpu=haswell'").vector_bits, 256);

  const TargetFacts mali = Facts("opencl -device=mali");
  ASSERT_TRUE(mali.gpu.has_value());
  EXPECT_EQ(mali.gpu->max_threads_per_block, 256);
  EXPECT_EQ(mali.gpu->warp_size, 1);
  EXPECT_EQ(mali.gpu->registers_per_thread, 64);
  const TargetFacts opencl = Facts("opencl");
  ASSERT_TRUE(opencl.gpu.has_value());
  EXPECT_EQ(opencl.gpu->shared_memory_per_block, 32 * 1024);
  EXPECT_EQ(opencl.target.kind(), "opencl");
}

TEST(TargetFactsTest, VdlaDefaultsAreThePapersConfiguration) {
  const TargetFacts vdla = Facts("vdla");
  ASSERT_TRUE(vdla.vdla.has_value());
  EXPECT_EQ(vdla.vdla->block_in, 16);
  EXPECT_EQ(vdla.vdla->block_out, 16);
  EXPECT_EQ(vdla.vdla->input_buffer_bytes, 32 * 1024);
  EXPECT_EQ(vdla.vdla->weight_buffer_bytes, 256 * 1024);
  EXPECT_EQ(vdla.vdla->accumulator_buffer_bytes, 128 * 1024);
  EXPECT_EQ(vdla.vdla->uop_buffer_bytes, 32 * 1024);
  // 16 x 16 MACs per cycle at 200 MHz: the paper's 51.2 G MAC/s.
  EXPECT_EQ(vdla.vdla->macs_per_cycle() * vdla.vdla->clock_mhz * 1000000, 51200000000);
  EXPECT_FALSE(vdla.gpu.has_value());
}

TEST(TargetFactsTest, VdlaConfigFromAFile) {
  const std::string path =
      WriteFile("small.json", R"({"block_in": 8, "block_out": 32, "weight_buffer_bytes": 65536})");
  const TargetFacts vdla = Facts("vdla -config=" + path);
  ASSERT_TRUE(vdla.vdla.has_value());
  EXPECT_EQ(vdla.vdla->block_in, 8);
  EXPECT_EQ(vdla.vdla->block_out, 32);
  EXPECT_EQ(vdla.vdla->weight_buffer_bytes, 65536);
  EXPECT_EQ(vdla.vdla->input_buffer_bytes, 32 * 1024);  // not given: the default
}

TEST(TargetFactsTest, BadVdlaConfigsNameFileAndKey) {
  struct Case {
    std::string text, expected;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"block_in": 12})", "'block_in' must be a power of two, got 12"},
           {R"({"blocks": 16})", "unknown key 'blocks'"},
           {R"({"batch": -1})", "'batch' must be a positive integer"},
           {R"({"batch": "one"})", "'batch' must be a positive integer"},
           {R"([16])", "must be a JSON object"},
           {R"({"block_in": )", "is not valid JSON"},
           {R"({"weight_buffer_bytes": 100})", "does not hold one weight block (256 bytes)"},
       }) {
    const std::string path = WriteFile("bad.json", c.text);
    absl::StatusOr<TargetFacts> f = DescribeTarget(Parsed("vdla -config=" + path));
    ASSERT_FALSE(f.ok()) << c.text;
    EXPECT_THAT(std::string(f.status().message()), HasSubstr(c.expected)) << c.text;
    EXPECT_THAT(std::string(f.status().message()), HasSubstr(path)) << c.text;
  }
  absl::StatusOr<TargetFacts> missing = DescribeTarget(Parsed("vdla -config=/nonexistent.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("VDLA config '/nonexistent.json': cannot be read"));
}

TEST(TargetFactsTest, BadLlvmTargetsAreErrors) {
  absl::StatusOr<TargetFacts> f = DescribeTarget(Parsed("llvm -mcpu=nosuchcpu"));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("nosuchcpu"));
  // A device target with a bad host reports the host.
  absl::StatusOr<TargetFacts> g = DescribeTarget(Parsed("cuda -host='llvm -mcpu=nosuchcpu'"));
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("nosuchcpu"));
}

TEST(FactsJsonTest, RoundTripsEveryKind) {
  const std::string config = WriteFile("rt.json", R"({"block_out": 8})");
  for (const std::string& text :
       {std::string("llvm -mcpu=skylake-avx512 -num-cores=4"), std::string("cuda -arch=sm_90"),
        std::string("opencl -device=mali"), "vdla -config=" + config}) {
    const TargetFacts f = Facts(text);
    const nlohmann::json j = FactsToJson(f);
    absl::StatusOr<TargetFacts> back = FactsFromJson(j);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    EXPECT_EQ(FactsToJson(*back), j) << text;
    EXPECT_EQ(back->target, f.target);
    EXPECT_EQ(back->vector_registers, f.vector_registers);
    EXPECT_EQ(back->cores, f.cores);
    EXPECT_EQ(back->gpu.has_value(), f.gpu.has_value());
    EXPECT_EQ(back->vdla.has_value(), f.vdla.has_value());
  }
  EXPECT_EQ(FactsFromJson(FactsToJson(Facts("vdla -config=" + config)))->vdla->block_out, 8);
}

TEST(FactsJsonTest, ErrorsNameTheField) {
  nlohmann::json j = FactsToJson(Facts("cuda"));
  j["gpu"].erase("warp_size");
  EXPECT_EQ(FactsFromJson(j, "request.facts").status().message(),
            "request.facts.gpu.warp_size: missing");
  j = FactsToJson(Facts("llvm"));
  j["cores"] = "two";
  EXPECT_THAT(std::string(FactsFromJson(j).status().message()),
              HasSubstr("facts.cores: expected an integer"));
  j = FactsToJson(Facts("llvm"));
  j["target"] = "llvmm";
  EXPECT_THAT(std::string(FactsFromJson(j).status().message()),
              HasSubstr("facts.target: target 'llvmm': unknown kind"));
  // Folders saved before vector_registers was written: the default.
  j = FactsToJson(Facts("llvm -mcpu=skylake-avx512"));
  j.erase("vector_registers");
  EXPECT_EQ(FactsFromJson(j)->vector_registers, 16);
}

}  // namespace
}  // namespace tessel::target
