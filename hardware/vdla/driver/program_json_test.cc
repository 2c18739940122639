// A Program's JSON form: random valid programs read back equal, and every kind of malformed file
// is refused naming the field.
#include "hardware/vdla/driver/program_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/vdla/testing/random_program.h"

namespace tessel::hardware::vdla {
namespace {

using ::testing::HasSubstr;

// A random program with relocations: its LOADs and STOREs count from parameter 0 or 1 in turn.
Program RandomRelocatable(uint32_t seed) {
  Program p;
  p.name = "random";
  p.params = {"a", "b"};
  p.param_bytes = {1024, 4096};
  p.insns = testing::RandomProgram(seed).insns;
  for (size_t i = 0; i < p.insns.size(); ++i) {
    p.dram_of.push_back(std::holds_alternative<MemInsn>(p.insns[i]) ? static_cast<int>(i % 2)
                                                                    : Program::kNoDram);
  }
  p.uops = {Uop{.acc = 3, .inp = 5, .wgt = 7}, Uop{.acc = 1, .inp = 0, .wgt = 2}};
  p.macs = 12345;
  p.input_entries = 1;
  p.weight_entries = 2;
  p.acc_entries = 3;
  p.uop_entries = 4;
  return p;
}

TEST(ProgramJsonTest, RandomProgramsRoundTrip) {
  for (uint32_t seed = 0; seed < 20; ++seed) {
    const Program p = RandomRelocatable(seed);
    absl::StatusOr<nlohmann::json> j = ProgramToJson(p);
    ASSERT_TRUE(j.ok()) << j.status();
    absl::StatusOr<Program> back = ProgramFromJson(nlohmann::json::parse(j->dump()));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->name, p.name);
    EXPECT_EQ(back->params, p.params);
    EXPECT_EQ(back->param_bytes, p.param_bytes);
    EXPECT_EQ(back->insns, p.insns) << seed;
    EXPECT_EQ(back->dram_of, p.dram_of);
    EXPECT_EQ(back->uops, p.uops);
    EXPECT_EQ(back->macs, p.macs);
    EXPECT_EQ(back->uop_entries, 4);
  }
}

TEST(ProgramJsonTest, MalformedFilesNameTheField) {
  const nlohmann::json good = *ProgramToJson(RandomRelocatable(1));
  struct Case {
    std::function<void(nlohmann::json&)> spoil;
    std::string message;
  };
  const Case cases[] = {
      {[](nlohmann::json& j) { j.erase("insns"); }, "'insns' is missing"},
      {[](nlohmann::json& j) { j["macs"] = "many"; }, "'macs' is not of the expected type"},
      {[](nlohmann::json& j) { j["insns"][0] = "12"; }, "'insns[0]' holds '12', not 32 hex digits"},
      {[](nlohmann::json& j) { j["uops"][1] = "zzzzzzzz"; }, "'uops[1]' holds 'zzzzzzzz', not hex"},
      {[](nlohmann::json& j) { j["dram_of"].push_back(0); }, "'dram_of' has "},
      {[](nlohmann::json& j) { j["param_bytes"] = {1}; }, "'param_bytes' has 1 sizes for 2 params"},
      {[](nlohmann::json& j) {
         for (size_t i = 0; i < j["dram_of"].size(); ++i) {
           if (j["dram_of"][i] == 0) {
             j["dram_of"][i] = 2;
             return;
           }
         }
       },
       "which names no parameter"},
      {[](nlohmann::json& j) { j["entries"].erase("uop"); }, "'entries.uop' is missing"},
  };
  for (const Case& c : cases) {
    nlohmann::json spoiled = good;
    c.spoil(spoiled);
    absl::StatusOr<Program> p = ProgramFromJson(spoiled);
    ASSERT_FALSE(p.ok()) << c.message;
    EXPECT_THAT(p.status().message(), HasSubstr(c.message));
  }
  EXPECT_THAT(ProgramFromJson(nlohmann::json::array()).status().message(),
              HasSubstr("is not a JSON object"));
}

}  // namespace
}  // namespace tessel::hardware::vdla
