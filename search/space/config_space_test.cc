// Numbering, JSON and text forms, filters and misuse of ConfigSpace and Config.

#include "search/space/config_space.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tessel::search {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// One knob of each kind: 6 * 6 * 2 * 3 = 216 points.
ConfigSpace SmallSpace() {
  ConfigSpace space;
  space.define_split("tile_ic", 64, {.policy = SplitPolicy::kPowerOfTwo, .max_innermost = 32});
  space.define_reorder("re", 3);
  space.define_annotate("ann", 2, {.allowed = {Annotation::kUnroll, Annotation::kVectorize}});
  space.define_knob("unroll_kw", {0, 1, 4});
  return space;
}

// 1820^2 * 5040 * 18 * 4, about 1.2e12 points.
ConfigSpace BigSpace() {
  ConfigSpace space;
  space.define_split("tile_x", 3 * 4096, {.num_outputs = 4});
  space.define_split("tile_y", 3 * 4096, {.num_outputs = 4});
  space.define_reorder("re", 7);
  space.define_annotate("ann", 3,
                        {.allowed = {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize,
                                     Annotation::kParallel}});
  space.define_knob("unroll", {0, 16, 64, 512});
  return space;
}

TEST(ConfigSpaceTest, SizeAndKnobs) {
  const ConfigSpace space = SmallSpace();
  EXPECT_EQ(space.size(), 6 * 6 * 2 * 3);
  ASSERT_EQ(space.num_knobs(), 4);
  EXPECT_EQ(space.knob_name(1), "re");
  EXPECT_EQ(space.knob_kind(0), KnobKind::kSplit);
  EXPECT_EQ(space.knob_kind(1), KnobKind::kReorder);
  EXPECT_EQ(space.knob_kind(2), KnobKind::kAnnotate);
  EXPECT_EQ(space.knob_kind(3), KnobKind::kChoice);
  EXPECT_EQ(space.knob_size(2), 2);  // [unroll, unroll], [unroll, vectorize]
  EXPECT_GT(BigSpace().size(), int64_t{1000000000000});

  const ConfigSpace empty;
  EXPECT_EQ(empty.size(), 1);
  EXPECT_EQ(empty.Get(0)->ToJson(), nlohmann::json::parse(R"({"index": 0, "knobs": {}})"));
}

TEST(ConfigSpaceTest, IndexRoundTripsOverWholeSpace) {
  const ConfigSpace space = SmallSpace();
  for (int64_t index = 0; index < space.size(); ++index) {
    absl::StatusOr<Config> config = space.Get(index);
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->index(), index);
    // Knob 0 varies fastest.
    const std::vector<int64_t>& v = config->value_indices();
    ASSERT_EQ(v.size(), 4u);
    EXPECT_EQ(v[0] + 6 * (v[1] + 6 * (v[2] + 2 * v[3])), index);
    absl::StatusOr<Config> back = space.FromValueIndices(v);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->index(), index);
    EXPECT_EQ(*back, *config);
  }
  EXPECT_EQ(space.Get(1)->split("tile_ic"), (std::vector<int64_t>{32, 2}));
  EXPECT_EQ(space.Get(6)->reorder("re"), (std::vector<int>{0, 2, 1}));
}

TEST(ConfigSpaceTest, IndexErrors) {
  const ConfigSpace space = SmallSpace();
  EXPECT_EQ(space.Get(-1).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(space.Get(space.size()).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(space.FromValueIndices({0, 0, 0}).status().message()),
              HasSubstr("3 value indices; the space has 4 knobs"));
  EXPECT_THAT(std::string(space.FromValueIndices({0, 6, 0, 0}).status().message()),
              HasSubstr("knob 're' has no value index 6"));
}

TEST(ConfigSpaceTest, SizeSaturates) {
  ConfigSpace space;
  std::vector<int64_t> values(1000);
  for (int i = 0; i < 1000; ++i) values[i] = i;
  for (int k = 0; k < 7; ++k) space.define_knob("k" + std::to_string(k), values);  // 1e21 points
  EXPECT_EQ(space.size(), kInt64Max);
  absl::StatusOr<Config> last_numbered = space.Get(kInt64Max - 1);
  ASSERT_TRUE(last_numbered.ok()) << last_numbered.status();
  EXPECT_EQ(space.FromValueIndices(last_numbered->value_indices())->index(), kInt64Max - 1);
  // A point beyond the numbered ones has no index, and its JSON none either.
  absl::StatusOr<Config> beyond = space.FromValueIndices(std::vector<int64_t>(7, 999));
  ASSERT_TRUE(beyond.ok()) << beyond.status();
  EXPECT_EQ(beyond->index(), -1);
  EXPECT_FALSE(beyond->ToJson().contains("index"));
  absl::StatusOr<Config> read = space.FromJson(beyond->ToJson());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, *beyond);
  std::mt19937_64 rng(3);
  EXPECT_EQ(space.SampleUnique(5, rng).size(), 5u);
}

TEST(ConfigTest, JsonAndTextForms) {
  ConfigSpace space;
  space.define_split("tile_ic", 64);
  space.define_reorder("re", 3);
  space.define_annotate(
      "ann", 2, {.allowed = {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize}});
  space.define_knob("unroll_kw", {0, 1});
  const nlohmann::json json = nlohmann::json::parse(R"({
      "knobs": {"tile_ic": [4, 16], "re": [0, 2, 1], "ann": ["unroll", "vectorize"],
                "unroll_kw": 1}})");
  absl::StatusOr<Config> config = space.FromJson(json);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->ToString(), "tile_ic=[4, 16] re=[0, 2, 1] ann=[unroll, vectorize] unroll_kw=1");
  EXPECT_EQ(config->split("tile_ic"), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(config->reorder("re"), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(config->annotate("ann"),
            (std::vector<Annotation>{Annotation::kUnroll, Annotation::kVectorize}));
  EXPECT_EQ(config->knob("unroll_kw"), 1);
  nlohmann::json expected = json;
  expected["index"] = config->index();
  EXPECT_EQ(config->ToJson(), expected);
  EXPECT_EQ(Config().ToString(), "");
}

TEST(ConfigTest, JsonRoundTripsEveryPointOfSmallSpace) {
  const ConfigSpace space = SmallSpace();
  for (int64_t index = 0; index < space.size(); ++index) {
    const Config config = *space.Get(index);
    absl::StatusOr<Config> back = space.FromJson(config.ToJson());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, config);
    EXPECT_EQ(back->index(), index);
    // The text form survives a trip through text.
    absl::StatusOr<Config> reparsed = space.FromJson(nlohmann::json::parse(config.ToJson().dump()));
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(reparsed->ToString(), config.ToString());
  }
}

TEST(ConfigTest, JsonRoundTripsRandomPointsOfBigSpace) {
  const ConfigSpace space = BigSpace();
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> index(0, space.size() - 1);
  for (int i = 0; i < 2000; ++i) {
    const Config config = *space.Get(index(rng));
    absl::StatusOr<Config> back = space.FromJson(nlohmann::json::parse(config.ToJson().dump()));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->index(), config.index());
    EXPECT_EQ(back->value_indices(), config.value_indices());
  }
}

// The error FromJson gives for `knobs` (the knobs object) on SmallSpace; ok is a test failure.
std::string FromJsonError(const std::string& knobs) {
  absl::StatusOr<Config> config =
      SmallSpace().FromJson(nlohmann::json::parse(absl::StrCat("{\"knobs\": ", knobs, "}")));
  EXPECT_FALSE(config.ok()) << knobs;
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(config.status().message());
}

TEST(ConfigTest, FromJsonErrorsNameKnobAndValue) {
  const std::string rest = R"("re": [0, 1, 2], "ann": ["unroll", "unroll"], "unroll_kw": 4)";
  // Missing and unknown knobs.
  EXPECT_THAT(FromJsonError(absl::StrCat("{", rest, "}")),
              HasSubstr("config has no value for knob 'tile_ic'"));
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [8, 8], "tile_oc": [1, 2], )", rest, "}")),
              HasSubstr("unknown knob 'tile_oc' = [1,2]; knobs: tile_ic, re, ann, unroll_kw"));
  // A split whose product is wrong, and one whose outermost part is not the recomputed one.
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [8, 7], )", rest, "}")),
              HasSubstr("knob 'tile_ic' (split of 64 into 2 parts (powers of two, innermost <= "
                        "32)) has no value [8,7]; valid values: [64, 1], [32, 2], [16, 4], "
                        "[8, 8], [4, 16], [2, 32]"));
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [9, 8], )", rest, "}")),
              HasSubstr("knob 'tile_ic'"));
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [1, 64], )", rest, "}")),
              HasSubstr("has no value [1,64]"));
  // Wrong JSON types.
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": "8x8", )", rest, "}")),
              HasSubstr("knob 'tile_ic' (split of 64 into 2 parts (powers of two, innermost <= "
                        "32)) expects a list of 2 integers, got \"8x8\""));
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [8, 8, 1], )", rest, "}")),
              HasSubstr("knob 'tile_ic'"));
  EXPECT_THAT(FromJsonError(absl::StrCat(R"({"tile_ic": [8.0, 8], )", rest, "}")),
              HasSubstr("knob 'tile_ic'"));
  const std::string split = R"("tile_ic": [8, 8], )";
  EXPECT_THAT(FromJsonError(absl::StrCat(
                  "{", split, R"("re": [0, 1], "ann": ["unroll", "unroll"], "unroll_kw": 4})")),
              HasSubstr("knob 're' (reorder of 3 axes (all orders)) expects a list of 3 integers"));
  EXPECT_THAT(FromJsonError(absl::StrCat(
                  "{", split, R"("re": [0, 1, 1], "ann": ["unroll", "unroll"], "unroll_kw": 4})")),
              HasSubstr("knob 're' (reorder of 3 axes (all orders)) has no value [0,1,1]"));
  EXPECT_THAT(FromJsonError(absl::StrCat(
                  "{", split, R"("re": [0, 1, 2], "ann": ["unroll", 1], "unroll_kw": 4})")),
              HasSubstr("knob 'ann'"));
  EXPECT_THAT(FromJsonError(absl::StrCat(
                  "{", split, R"("re": [0, 1, 2], "ann": ["unroll", "unrol"], "unroll_kw": 4})")),
              HasSubstr("knob 'ann' (annotation of 2 axes from {unroll, vectorize}) has no "
                        "annotation \"unrol\""));
  // Allowed names, but vectorizing the outer axis is not a value of the space.
  EXPECT_THAT(FromJsonError(absl::StrCat("{", split,
                                         R"("re": [0, 1, 2], "ann": ["vectorize", "unroll"], )"
                                         R"("unroll_kw": 4})")),
              HasSubstr("knob 'ann' (annotation of 2 axes from {unroll, vectorize}) has no value "
                        "[\"vectorize\",\"unroll\"]; valid values: [unroll, unroll], [unroll, "
                        "vectorize]"));
  EXPECT_THAT(FromJsonError(absl::StrCat(
                  "{", split, R"("re": [0, 1, 2], "ann": ["unroll", "unroll"], "unroll_kw": 2})")),
              HasSubstr("knob 'unroll_kw' (choice of 3 values) has no value 2; valid values: 0, "
                        "1, 4"));
  EXPECT_THAT(
      FromJsonError(absl::StrCat(
          "{", split, R"("re": [0, 1, 2], "ann": ["unroll", "unroll"], "unroll_kw": [4]})")),
      HasSubstr("knob 'unroll_kw' (choice of 3 values) expects an integer, got [4]"));
}

TEST(ConfigTest, FromJsonStructureAndIndexErrors) {
  const ConfigSpace space = SmallSpace();
  const Config config = *space.Get(100);
  nlohmann::json json = config.ToJson();
  json["index"] = 101;
  EXPECT_THAT(std::string(space.FromJson(json).status().message()),
              HasSubstr(absl::StrCat("config \"index\" 101 disagrees with its knob values ",
                                     config.ToString(), ", whose index is 100")));
  json["index"] = "100";
  EXPECT_THAT(std::string(space.FromJson(json).status().message()),
              HasSubstr("config \"index\" must be an integer, got \"100\""));
  json.erase("index");
  EXPECT_TRUE(space.FromJson(json).ok());
  EXPECT_THAT(std::string(space.FromJson(nlohmann::json::array()).status().message()),
              HasSubstr("a config must be a JSON object"));
  EXPECT_THAT(
      std::string(space.FromJson(nlohmann::json::parse(R"({"index": 3})")).status().message()),
      HasSubstr("a config needs an object \"knobs\""));
}

TEST(ConfigSpaceTest, ValidateNamesFilter) {
  ConfigSpace space = SmallSpace();
  space.AddFilter("inner_fits_register",
                  [](const Config& c) { return c.split("tile_ic")[1] <= 8; });
  space.AddFilter("no_unroll_4", [](const Config& c) { return c.knob("unroll_kw") != 4; });
  const Config ok = *space.FromValueIndices({2, 0, 0, 0});
  EXPECT_TRUE(space.Validate(ok).ok());
  const Config too_wide = *space.FromValueIndices({4, 0, 0, 2});
  EXPECT_THAT(std::string(space.Validate(too_wide).message()),
              HasSubstr(absl::StrCat("config ", too_wide.ToString(),
                                     " is rejected by filter 'inner_fits_register'")));
  EXPECT_THAT(std::string(space.Validate(*space.FromValueIndices({0, 0, 0, 2})).message()),
              HasSubstr("filter 'no_unroll_4'"));
  EXPECT_THAT(std::string(space.Validate(Config()).message()), HasSubstr("empty Config"));
  EXPECT_THAT(std::string(space.Validate(*BigSpace().Get(0)).message()),
              HasSubstr("belongs to another space"));
}

TEST(ConfigSpaceTest, CopiesShareDeclarationsAndEqualSpacesCompareEqual) {
  ConfigSpace a;
  a.define_knob("x", {1, 2});
  ConfigSpace b = a;
  a.define_knob("y", {3, 4, 5});
  EXPECT_EQ(b.size(), 6);
  EXPECT_EQ(b.Get(5)->knob("y"), 5);
  // Two spaces declared alike number alike; their configs are equal.
  EXPECT_EQ(*SmallSpace().Get(17), *SmallSpace().Get(17));
  EXPECT_NE(*SmallSpace().Get(17), *SmallSpace().Get(18));
  EXPECT_NE(*SmallSpace().Get(0), *BigSpace().Get(0));
  EXPECT_EQ(Config(), Config());
  EXPECT_NE(Config(), *SmallSpace().Get(0));
}

using ConfigSpaceDeathTest = ::testing::Test;

TEST_F(ConfigSpaceDeathTest, MisuseFailsChecksNamingTheKnob) {
  const Config config = *SmallSpace().Get(0);
  EXPECT_DEATH(config.split("re"),
               "Config::split\\(\"re\"\\): knob 're' is a reorder knob, not "
               "a split knob");
  EXPECT_DEATH(config.knob("tile_ic"), "knob 'tile_ic' is a split knob, not a choice knob");
  EXPECT_DEATH(config.annotate("unroll_kw"), "knob 'unroll_kw' is a choice knob");
  EXPECT_DEATH(config.reorder("ann"), "knob 'ann' is an annotate knob");
  EXPECT_DEATH(config.knob("tile_oc"), "the space declares no knob 'tile_oc'");
  EXPECT_DEATH(Config().knob("x"), "Config::knob\\(\"x\"\\) on an empty Config");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_knob("x", {1});
        space.define_reorder("x", 2);
      },
      "knob 'x' is declared twice");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.define_knob("x", {1});
        (void)space.Get(0);
        space.define_knob("y", {1});
      },
      "knob 'y' is declared after a Config of the space was taken");
  EXPECT_DEATH(
      {
        ConfigSpace space;
        space.AddFilter("f", [](const Config&) { return true; });
        space.AddFilter("f", [](const Config&) { return true; });
      },
      "filter 'f' is added twice");
  std::mt19937_64 rng(1);
  EXPECT_DEATH(SmallSpace().Neighbour(*BigSpace().Get(0), rng), "not a point of this space");
}

}  // namespace
}  // namespace tessel::search
