// VDLA's encodings: every instruction kind round-trips at its fields' extremes, a value too wide
// is named, the bit layout the RTL decodes stays put, instructions route to their modules, and
// configurations the encodings cannot address are refused.
#include "hardware/vdla/isa.h"

#include <gtest/gtest.h>

#include "hardware/vdla/config.h"

namespace tessel::hardware::vdla {
namespace {

constexpr Deps kAll{true, true, true, true};

void ExpectRoundTrip(const Insn& insn) {
  absl::StatusOr<EncodedInsn> bits = Encode(insn);
  ASSERT_TRUE(bits.ok()) << bits.status();
  absl::StatusOr<Insn> back = Decode(*bits);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, insn) << ToString(insn) << " came back as " << ToString(*back);
}

TEST(IsaTest, EveryKindRoundTripsAtItsFieldsExtremes) {
  const uint32_t most16 = (1u << 16) - 1;
  ExpectRoundTrip(MemInsn{Opcode::kLoad, kAll, MemType::kInput, most16, 0xffffffffu, most16, most16,
                          most16, 15, 15, 15, 15});
  ExpectRoundTrip(MemInsn{Opcode::kStore, {}, MemType::kOutput, 7, 9, 1, 2, 3, 0, 0, 0, 0});
  ExpectRoundTrip(MemInsn{
      Opcode::kLoad, {false, true, false, false}, MemType::kUop, 0, 1, 1, 1, 1, 0, 1, 0, 1});
  const uint32_t iter = (1u << kIterBits) - 1, acc = (1u << kUopAccBits) - 1;
  const uint32_t inp = (1u << kUopInpBits) - 1, wgt = (1u << kUopWgtBits) - 1;
  ExpectRoundTrip(GemmInsn{kAll, true, (1u << kUopIndexBits) - 1, (1u << (kUopIndexBits + 1)) - 1,
                           iter, iter, acc, acc, inp, inp, wgt, wgt});
  ExpectRoundTrip(GemmInsn{{true, false, false, true}, false, 3, 5, 1, 2, 3, 4, 5, 6, 7, 8});
  for (int32_t imm : {-32768, -1, 0, 1, 32767}) {
    ExpectRoundTrip(AluInsn{kAll, AluOp::kShr, true, imm, 1, 2, 3, 4, acc, 0, inp, 1});
  }
  ExpectRoundTrip(AluInsn{{}, AluOp::kMul, false, 0, 0, 1, 1, 1, 0, 0, 0, 0});
  ExpectRoundTrip(FinishInsn{kAll});
  ExpectRoundTrip(FinishInsn{});
}

TEST(IsaTest, AValueTooWideNamesItsField) {
  MemInsn load{Opcode::kLoad, {}, MemType::kInput, 1u << 16, 0, 1, 1, 1, 0, 0, 0, 0};
  absl::StatusOr<EncodedInsn> bits = Encode(load);
  ASSERT_FALSE(bits.ok());
  EXPECT_EQ(bits.status().message(),
            "instruction field 'sram_base' = 65536 does not fit in 16 bits");
  load.sram_base = 0;
  load.x_pad_1 = 16;
  EXPECT_NE(Encode(load).status().message().find("'x_pad_1' = 16"), std::string::npos);
  AluInsn alu;
  alu.imm = 32768;
  EXPECT_EQ(Encode(alu).status().message(),
            "instruction field 'imm' = 32768 does not fit in 16 signed bits");
  GemmInsn gemm;
  gemm.iter_out = 1u << kIterBits;
  EXPECT_NE(Encode(gemm).status().message().find("'iter_out'"), std::string::npos);
}

// The RTL decodes these positions: bits 0-2 opcode, 3-6 pop_prev, pop_next, push_prev, push_next,
// then the kind's fields in the order of isa.h.
TEST(IsaTest, TheBitLayoutIsFixed) {
  EXPECT_EQ(Encode(FinishInsn{{true, false, false, false}})->words,
            (std::array<uint64_t, 2>{4 | 1 << 3, 0}));
  // LOAD (0), push_next (bit 6), input (2 at bit 7), sram_base 5 at bit 10, dram_base 1 at 26,
  // y_size 1 at 58, x_size 3 at 74 (word 1 bit 10).
  const MemInsn load{
      Opcode::kLoad, {false, false, false, true}, MemType::kInput, 5, 1, 1, 3, 0, 0, 0, 0, 0};
  EXPECT_EQ(Encode(load)->words,
            (std::array<uint64_t, 2>{uint64_t{1} << 6 | uint64_t{2} << 7 | uint64_t{5} << 10 |
                                         uint64_t{1} << 26 | uint64_t{1} << 58,
                                     uint64_t{3} << 10}));
}

TEST(IsaTest, UnknownCodesAreErrors) {
  EXPECT_EQ(Decode(EncodedInsn{{7, 0}}).status().message(), "unknown opcode 7");
  EXPECT_EQ(Decode(EncodedInsn{{uint64_t{6} << 7, 0}}).status().message(), "unknown memory type 6");
  // ALU (3) with operation 7: the operation follows 7 + 14 + 15 + 13 + 13 + 4 * 11 bits.
  EXPECT_EQ(
      Decode(EncodedInsn{{3, uint64_t{7} << (7 + 14 + 15 + 13 + 13 + 44 - 64)}}).status().message(),
      "unknown ALU operation 7");
}

TEST(IsaTest, MicroOpsRoundTripAndRefuseWideIndices) {
  const Uop uop{(1u << kUopAccBits) - 1, 5, (1u << kUopWgtBits) - 1};
  absl::StatusOr<uint32_t> bits = EncodeUop(uop);
  ASSERT_TRUE(bits.ok());
  EXPECT_EQ(DecodeUop(*bits), uop);
  EXPECT_FALSE(EncodeUop(Uop{0, 1u << kUopInpBits, 0}).ok());
}

TEST(IsaTest, InstructionsRouteToTheirModules) {
  auto load = [](MemType t) { return MemInsn{Opcode::kLoad, {}, t, 0, 0, 1, 1, 1, 0, 0, 0, 0}; };
  EXPECT_EQ(*Route(load(MemType::kInput)), Module::kLoad);
  EXPECT_EQ(*Route(load(MemType::kWeight)), Module::kLoad);
  EXPECT_EQ(*Route(load(MemType::kUop)), Module::kCompute);
  EXPECT_EQ(*Route(load(MemType::kAccumulator)), Module::kCompute);
  EXPECT_EQ(*Route(GemmInsn{}), Module::kCompute);
  EXPECT_EQ(*Route(AluInsn{}), Module::kCompute);
  EXPECT_EQ(*Route(FinishInsn{}), Module::kCompute);
  MemInsn store = load(MemType::kOutput);
  store.opcode = Opcode::kStore;
  EXPECT_EQ(*Route(store), Module::kStore);

  EXPECT_NE(Route(load(MemType::kOutput)).status().message().find("outputs are not loaded"),
            std::string::npos);
  store.type = MemType::kInput;
  EXPECT_NE(Route(store).status().message().find("STORE moves outputs only"), std::string::npos);
  MemInsn padded = load(MemType::kWeight);
  padded.x_pad_0 = 1;
  EXPECT_NE(Route(padded).status().message().find("only inputs and accumulators are padded"),
            std::string::npos);
  MemInsn early = load(MemType::kInput);
  early.deps.pop_prev = true;
  EXPECT_EQ(Route(early).status().message(),
            "LOAD inp sram=0 dram=0 y=1 x=1 stride=1 pad=0,0,0,0 [pop_prev]: the load module has "
            "no queue before it");
  store.type = MemType::kOutput;
  store.deps.push_next = true;
  EXPECT_NE(Route(store).status().message().find("the store module has no queue after it"),
            std::string::npos);
}

// The extent runs from dram_base to the last row's last entry, whatever the padding; at the
// fields' extremes it passes 32 bits without wrapping.
TEST(IsaTest, DramExtentIsFromTheBaseToTheLastRowsLastEntry) {
  MemInsn m{Opcode::kLoad, {}, MemType::kInput, 0, 40, 3, 2, 5, 1, 1, 1, 1};
  EXPECT_EQ(DramExtentOf(m, 16), (DramExtent{40, 51, 16}));  // 40 + 2*5 + 1
  EXPECT_EQ(DramExtentOf(m, 16)->begin_byte(), 640u);
  EXPECT_EQ(DramExtentOf(m, 16)->end_byte(), 832u);
  EXPECT_FALSE(DramExtentOf(m, 16)->Passes(832));
  EXPECT_TRUE(DramExtentOf(m, 16)->Passes(831));
  m.x_stride = 0;  // rows over one another
  EXPECT_EQ(DramExtentOf(m, 16), (DramExtent{40, 41, 16}));
  m.y_size = 0;
  EXPECT_EQ(DramExtentOf(m, 16), std::nullopt);
  const uint32_t most16 = (1u << 16) - 1;
  const MemInsn far{Opcode::kStore, {}, MemType::kOutput, 0, 0xffffffffu, most16, most16, most16};
  const uint64_t last = 0xffffffffull + uint64_t{most16 - 1} * most16 + most16 - 1;
  EXPECT_EQ(DramExtentOf(far, 4), (DramExtent{0xffffffffu, last, 4}));
  EXPECT_EQ(DramOverrunMessage(DramExtent{40, 51, 16}, 512),
            "DRAM entries 40-51 (bytes 640-831) beyond the 512 bytes of DRAM");
  EXPECT_EQ(DramOverrunMessage(DramExtent{40, 40, 256}, 8192),
            "DRAM entry 40 (bytes 10240-10495) beyond the 8192 bytes of DRAM");
}

TEST(ConfigTest, ThePapersConfigurationIsBuildable) {
  const Config c;
  EXPECT_TRUE(CheckBuildable(c).ok()) << CheckBuildable(c);
  EXPECT_EQ(c.input_entries(), 2048);
  EXPECT_EQ(c.weight_entries(), 1024);
  EXPECT_EQ(c.accumulator_entries(), 2048);
  EXPECT_EQ(c.uop_entries(), 8192);
  EXPECT_EQ(c.macs_per_cycle(), 256);
}

TEST(ConfigTest, WhatTheHardwareCannotBeIsRefused) {
  Config narrow;
  narrow.input_bits = 4;
  EXPECT_NE(CheckBuildable(narrow).message().find("input_bits 4"), std::string::npos);
  Config big;
  big.weight_buffer_bytes = 512 * 1024;  // 2048 weight entries; the micro-op field holds 1024
  EXPECT_EQ(CheckBuildable(big).message(),
            "VDLA weight buffer of 2048 entries is more than its 10-bit micro-op index reaches "
            "(1024)");
  Config tiny;
  tiny.input_buffer_bytes = 8;
  EXPECT_EQ(CheckBuildable(tiny).message(), "VDLA input buffer holds no entry of 16 bytes");
}

}  // namespace
}  // namespace tessel::hardware::vdla
