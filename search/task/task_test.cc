// Keys, JSON form and space lookup of Task.

#include "search/task/task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/template.h"

namespace tessel::search {
namespace {

using ::testing::HasSubstr;

// A toy template: one choice knob whose values depend on the argument "n" (>= 1).
TESSEL_REGISTER_TEMPLATE(
    "cpu", (ops::Template{
               .name = "toy_task_test.x86",
               .op = "toy",
               .summary = "test only",
               .space = [](const ops::OpArgs& args,
                           const target::TargetFacts&) -> absl::StatusOr<ConfigSpace> {
                 ops::ArgReader reader("toy_task_test.x86", args);
                 absl::StatusOr<int64_t> n = reader.Int("n");
                 if (!n.ok()) return n.status();
                 ConfigSpace space;
                 std::vector<int64_t> values;
                 for (int64_t v = 1; v <= *n; ++v) values.push_back(v);
                 space.define_knob("k", values);
                 return space;
               },
               .fallback = [](const ConfigSpace& space, const ops::OpArgs&,
                              const target::TargetFacts&) { return *space.Get(0); },
               .instantiate = [](const Config&, const ops::OpArgs&,
                                 const target::TargetFacts&) -> absl::StatusOr<ops::OpProgram> {
                 return absl::UnimplementedError("test only");
               },
           }));

Task Conv() {
  return Task{"conv2d_nchwc.x86", nlohmann::json::parse(R"({"ic": 64, "h": 56, "w": 56})"),
              *target::Target::Parse("llvm -mcpu=native")};
}

TEST(TaskTest, KeyIsTemplateArgsTarget) {
  EXPECT_EQ(Conv().Key(), R"(conv2d_nchwc.x86|{"h":56,"ic":64,"w":56}|llvm -mcpu=native)");
}

TEST(TaskTest, KeyIgnoresArgOrder) {
  Task a = Conv();
  Task b = a;
  b.args = nlohmann::json::parse(R"({"w": 56, "ic": 64, "h": 56})");
  EXPECT_EQ(a.Key(), b.Key());
}

TEST(TaskTest, KeyDependsOnTargetTemplateAndArgs) {
  Task a = Conv();
  Task b = a;
  b.target = *target::Target::Parse("llvm -mcpu=znver3");
  EXPECT_NE(a.Key(), b.Key());
  Task c = a;
  c.template_name = "conv2d_direct.x86";
  EXPECT_NE(a.Key(), c.Key());
  Task d = a;
  d.args["h"] = 28;
  EXPECT_NE(a.Key(), d.Key());
}

TEST(TaskTest, JsonRoundTrip) {
  Task a = Conv();
  nlohmann::json j = a.ToJson();
  EXPECT_EQ(j["template"], "conv2d_nchwc.x86");
  EXPECT_EQ(j["target"], "llvm -mcpu=native");
  absl::StatusOr<Task> b = Task::FromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, a);
  EXPECT_EQ(b->Key(), a.Key());
}

TEST(TaskTest, FromJsonNamesMissingAndIllTypedFields) {
  nlohmann::json j = Conv().ToJson();
  nlohmann::json no_template = j;
  no_template.erase("template");
  EXPECT_THAT(Task::FromJson(no_template).status().message(), HasSubstr("task.template: missing"));

  nlohmann::json bad_target = j;
  bad_target["target"] = 3;
  EXPECT_THAT(Task::FromJson(bad_target).status().message(),
              HasSubstr("task.target: expected a string"));
  bad_target["target"] = "rocm -mcpu=gfx90a";
  EXPECT_THAT(Task::FromJson(bad_target).status().message(),
              HasSubstr("task.target: target 'rocm -mcpu=gfx90a': unknown kind 'rocm'"));

  nlohmann::json no_args = j;
  no_args.erase("args");
  EXPECT_THAT(Task::FromJson(no_args).status().message(), HasSubstr("task.args: missing"));

  nlohmann::json bad_args = j;
  bad_args["args"] = nlohmann::json::array({1, 2});
  EXPECT_THAT(Task::FromJson(bad_args).status().message(),
              HasSubstr("task.args: expected an object"));

  EXPECT_THAT(Task::FromJson(nlohmann::json("x")).status().message(),
              HasSubstr("task: expected an object"));
}

TEST(TaskTest, SpaceComesFromTheTemplate) {
  Task t{"toy_task_test.x86", {{"n", 5}}, target::Target::Llvm()};
  absl::StatusOr<ConfigSpace> space = Space(t, target::TargetFacts{});
  ASSERT_TRUE(space.ok()) << space.status();
  EXPECT_EQ(space->size(), 5);
}

TEST(TaskTest, SpaceErrors) {
  Task unknown{"no_such_template.x86", {{"n", 5}}, target::Target::Llvm()};
  absl::Status s = Space(unknown, target::TargetFacts{}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("no_such_template.x86"));

  Task bad_args{"toy_task_test.x86", {{"m", 5}}, target::Target::Llvm()};
  EXPECT_THAT(Space(bad_args, target::TargetFacts{}).status().message(), HasSubstr("n"));
}

}  // namespace
}  // namespace tessel::search
