// call_extern: host functions registered by name, called with scalars, strings and buffers.
#include "compiler/codegen/interp/extern.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/codegen/interp/interp.h"
#include "compiler/codegen/interp/testing.h"
#include "compiler/ir/op.h"

namespace tessel::interp {
namespace {

using testing::HostTensor;
using testing::Loop;

ir::Expr CallExtern(ir::DataType type, const std::string& name, std::vector<ir::Expr> args) {
  args.insert(args.begin(), ir::StringImm(name));
  return ir::Call(type, ir::Intrinsic::kCallExtern, std::move(args));
}

TEST(ExternTest, ScalarFunctionComputesValues) {
  ExternRegistry registry;
  ASSERT_TRUE(registry
                  .Register("axpy",
                            [](std::span<const ExternArg> args) -> absl::StatusOr<ExternResult> {
                              return std::get<double>(args[0]) *
                                         static_cast<double>(std::get<int64_t>(args[1])) +
                                     std::get<double>(args[2]);
                            })
                  .ok());
  ir::Buffer out = ir::Buffer::Declare("out", {5}, ir::kFloat32);
  ir::Var i("i");
  ir::PrimFunc f(
      "use_axpy", {out->data}, {out},
      Loop(i, 5,
           ir::BufferStore(
               out, CallExtern(ir::kFloat32, "axpy", {ir::Expr(0.5f), i, ir::Expr(1.0f)}), {i})));
  absl::StatusOr<Program> program = Program::Compile(f, registry);
  ASSERT_TRUE(program.ok()) << program.status();
  HostTensor<float> t({5});
  ASSERT_TRUE(program->Run({t.dl()}).ok());
  for (int k = 0; k < 5; ++k) EXPECT_EQ(t[k], 0.5f * k + 1.0f);
}

// A tensor intrinsic: the host function receives a buffer's address, a string and sizes.
TEST(ExternTest, FunctionWritesThroughABufferHandle) {
  ExternRegistry registry;
  std::string seen_tag;
  ASSERT_TRUE(registry
                  .Register("fill_iota",
                            [&](std::span<const ExternArg> args) -> absl::StatusOr<ExternResult> {
                              auto* data = static_cast<int32_t*>(std::get<void*>(args[0]));
                              seen_tag = std::string(std::get<std::string_view>(args[1]));
                              const int64_t start = std::get<int64_t>(args[2]);
                              const int64_t count = std::get<int64_t>(args[3]);
                              for (int64_t k = 0; k < count; ++k) data[start + k] = 100 + k;
                              return int64_t{0};
                            })
                  .ok());
  ir::Buffer out = ir::Buffer::Declare("out", {8}, ir::kInt32);
  ir::PrimFunc f(
      "use_fill", {out->data}, {out},
      ir::Evaluate(CallExtern(ir::kInt32, "fill_iota", {out->data, ir::StringImm("tile"), 2, 4})));
  HostTensor<int32_t> t({8});
  const absl::Status status = interp::Run(f, {t.dl()}, registry);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(seen_tag, "tile");
  EXPECT_EQ(t.values, (AlignedVector<int32_t>{0, 0, 100, 101, 102, 103, 0, 0}));
}

TEST(ExternTest, ErrorsNameTheFunction) {
  ExternRegistry registry;
  ASSERT_TRUE(registry
                  .Register("fails",
                            [](std::span<const ExternArg>) -> absl::StatusOr<ExternResult> {
                              return absl::InternalError("device not ready");
                            })
                  .ok());
  EXPECT_EQ(registry
                .Register("fails",
                          [](std::span<const ExternArg>) -> absl::StatusOr<ExternResult> {
                            return int64_t{0};
                          })
                .code(),
            absl::StatusCode::kAlreadyExists);
  ir::PrimFunc calls_failing("calls_failing", {}, {},
                             ir::Evaluate(CallExtern(ir::kInt32, "fails", {})));
  const absl::Status failed = interp::Run(calls_failing, {}, registry);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("call_extern \"fails\" failed: device not ready"),
            absl::string_view::npos)
      << failed;

  ir::PrimFunc calls_unknown("calls_unknown", {}, {},
                             ir::Evaluate(CallExtern(ir::kInt32, "nowhere", {})));
  const absl::Status unknown = Program::Compile(calls_unknown, registry).status();
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("call_extern \"nowhere\": no host function of that name"),
            absl::string_view::npos)
      << unknown;
  EXPECT_TRUE(registry.Unregister("fails").ok());
  EXPECT_FALSE(registry.Unregister("fails").ok());
}

TEST(ExternTest, GlobalRegistryIsTheDefault) {
  ASSERT_TRUE(ExternRegistry::Global()
                  .Register("extern_test_answer",
                            [](std::span<const ExternArg>) -> absl::StatusOr<ExternResult> {
                              return int64_t{42};
                            })
                  .ok());
  ir::Buffer out = ir::Buffer::Declare("out", {1}, ir::kInt32);
  ir::PrimFunc f("answer", {out->data}, {out},
                 ir::BufferStore(out, CallExtern(ir::kInt32, "extern_test_answer", {}), {0}));
  HostTensor<int32_t> t({1});
  ASSERT_TRUE(interp::Run(f, {t.dl()}).ok());
  EXPECT_EQ(t[0], 42);
  EXPECT_TRUE(ExternRegistry::Global().Unregister("extern_test_answer").ok());
}

}  // namespace
}  // namespace tessel::interp
