// The driver: DRAM allocation (alignment, first fit, reuse after free, exhaustion and bad frees
// named), and a program run on either engine with the same results, the RTL's cycles counted.
#include "hardware/vdla/driver/device.h"

#include <gtest/gtest.h>

#include <cstring>

#include "hardware/vdla/testing/programs.h"

namespace tessel::hardware::vdla {
namespace {

std::unique_ptr<Device> Open(uint64_t dram_bytes, Engine engine = Engine::kRtl) {
  DeviceOptions options;
  options.dram_bytes = dram_bytes;
  options.engine = engine;
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(options);
  EXPECT_TRUE(device.ok()) << device.status();
  return device.ok() ? *std::move(device) : nullptr;
}

TEST(DeviceTest, AllocatesAlignedFirstFitAndReusesFreedRegions) {
  std::unique_ptr<Device> d = Open(4096);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(*d->Allocate(100), 0u);
  EXPECT_EQ(*d->Allocate(10, 256), 256u);
  EXPECT_EQ(*d->Allocate(0), 128u);  // the gap before 256, 64-aligned
  EXPECT_EQ(d->allocated_bytes(), 100u + 10 + 1);
  ASSERT_TRUE(d->Free(0).ok());
  EXPECT_EQ(*d->Allocate(64), 0u);  // first fit: the freed region
  ASSERT_TRUE(d->Free(0).ok());
  ASSERT_TRUE(d->Free(128).ok());
  ASSERT_TRUE(d->Free(256).ok());
  EXPECT_EQ(d->allocated_bytes(), 0u);
  EXPECT_EQ(*d->Allocate(4096), 0u);  // the free regions merged back into one
}

TEST(DeviceTest, ExhaustionAndBadRequestsAreNamed) {
  std::unique_ptr<Device> d = Open(1024);
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->Allocate(600).ok());
  absl::StatusOr<uint64_t> big = d->Allocate(600);
  EXPECT_TRUE(absl::IsResourceExhausted(big.status())) << big.status();
  EXPECT_EQ(big.status().message(),
            "VDLA DRAM: no 600 bytes free at alignment 64 (largest free region 424 bytes)");
  EXPECT_EQ(d->Allocate(8, 8).status().message(),
            "VDLA allocation alignment 8 is not a power of two >= 16");
  EXPECT_EQ(d->Free(64).message(), "VDLA DRAM: offset 64 is not an allocated region");
  DeviceOptions none;
  none.dram_bytes = 0;
  EXPECT_FALSE(Device::Open(none).ok());
  DeviceOptions narrow;
  narrow.config.input_bits = 4;
  EXPECT_FALSE(Device::Open(narrow).ok());
}

TEST(DeviceTest, BothEnginesRunAProgramToTheSameResult) {
  const testing::Matmul mm = testing::TiledMatmul(4, 64, 32, 2);
  std::vector<uint8_t> results[2];
  RunReport reports[2];
  for (Engine engine : {Engine::kRtl, Engine::kFunctional}) {
    std::unique_ptr<Device> d = Open(1 << 20, engine);
    ASSERT_NE(d, nullptr);
    // The program addresses DRAM from 0: the first region allocated.
    absl::StatusOr<uint64_t> region = d->Allocate(mm.program.dram.size());
    ASSERT_TRUE(region.ok());
    ASSERT_EQ(*region, 0u);
    std::memcpy(d->data(), mm.program.dram.data(), mm.program.dram.size());
    absl::StatusOr<RunReport> report = d->Run(mm.program.Encoded());
    ASSERT_TRUE(report.ok()) << report.status();
    const int e = engine == Engine::kRtl ? 0 : 1;
    reports[e] = *report;
    results[e].assign(d->data() + mm.c_byte, d->data() + mm.c_byte + mm.m * mm.n);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(reports[0].instructions, reports[1].instructions);
  EXPECT_EQ(reports[0].macs, reports[1].macs);
  EXPECT_EQ(reports[0].macs, int64_t{4} * 64 * 32);
  EXPECT_GT(reports[0].cycles, 0);
  EXPECT_EQ(reports[1].cycles, -1);
}

TEST(DeviceTest, ADeadlockedProgramIsAnError) {
  std::unique_ptr<Device> d = Open(4096);
  ASSERT_NE(d, nullptr);
  const testing::TestProgram p{
      {GemmInsn{testing::kPopPrev, true, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}, FinishInsn{}}, {}};
  absl::StatusOr<RunReport> report = d->Run(p.Encoded());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("deadlock"), std::string::npos) << report.status();
}

}  // namespace
}  // namespace tessel::hardware::vdla
