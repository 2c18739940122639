// Compiled modules: save and load round trips (shared library, object file), AArch64 objects,
// and the argument checks at every call.
#include "compiler/runtime/module.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/codegen/build.h"
#include "compiler/ir/op.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::codegen::llvm_backend {
namespace {

using ir::Expr;
using ir::Var;

constexpr DLDataType kF32{kDLFloat, 32, 1};

// C[i, j] = A[i, j] + B[j] * s over an n x 8 A with a symbolic n, vectorized columns.
ir::PrimFunc ScaledAdd() {
  Var n("n");
  te::Tensor a = te::placeholder({n, 8}, ir::kFloat32, "A");
  te::Tensor b = te::placeholder({8}, ir::kFloat32, "B");
  te::Tensor c = te::compute(
      {n, 8}, [&](Var i, Var j) { return a(i, j) + b(j) * 0.5f; }, "C");
  schedule::Schedule s = schedule::create_schedule({c.op()});
  EXPECT_TRUE(s[c].vectorize(c.op().as<te::ComputeOpNode>()->axis[1]).ok());
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {a, b, c}, "scaled_add");
  EXPECT_TRUE(f.ok()) << f.status();
  return *f;
}

class ModuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) / ("module_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    a_ = runtime::NDArray::Empty({3, 8}, kF32);
    b_ = runtime::NDArray::Empty({8}, kF32);
    c_ = runtime::NDArray::Empty({3, 8}, kF32);
    for (int i = 0; i < 24; ++i) a_.data<float>()[i] = static_cast<float>(i);
    for (int j = 0; j < 8; ++j) b_.data<float>()[j] = static_cast<float>(10 * j);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void ExpectComputed() {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 8; ++j) {
        ASSERT_EQ(c_.data<float>()[i * 8 + j], static_cast<float>(i * 8 + j) + 5.0f * j);
      }
    }
  }

  std::filesystem::path dir_;
  runtime::NDArray a_, b_, c_;
};

TEST_F(ModuleTest, SharedLibraryRoundTrip) {
  absl::StatusOr<runtime::Module> m =
      codegen::Build({ScaledAdd()}, *target::Target::Parse("llvm -mcpu=native"));
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string path = (dir_ / "scaled_add.so").string();
  ASSERT_TRUE(m->Save(path).ok());
  absl::StatusOr<runtime::Module> loaded = runtime::Module::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->FunctionNames(), std::vector<std::string>{"scaled_add"});
  absl::StatusOr<runtime::Function> f = loaded->GetFunction("scaled_add");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE((*f)({a_.dl(), b_.dl(), c_.dl(), int64_t{3}}).ok());
  ExpectComputed();
  // The loaded function checks its arguments as the JIT's does.
  const absl::Status bad = (*f)({a_.dl(), b_.dl(), c_.dl(), int64_t{4}});
  EXPECT_EQ(bad.message(),
            "function 'scaled_add' argument 0 (parameter 'A'): shape[0] is 3 but must equal n = 4");
  // A copy of a loaded library saves too.
  ASSERT_TRUE(loaded->Save((dir_ / "copy.so").string()).ok());
  EXPECT_TRUE(runtime::Module::Load((dir_ / "copy.so").string()).ok());
}

TEST_F(ModuleTest, LoadErrorsNameTheFile) {
  absl::StatusOr<runtime::Module> missing = runtime::Module::Load((dir_ / "none.so").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.so': no such file"), std::string::npos);
  const std::string junk = (dir_ / "junk.so").string();
  std::ofstream(junk) << "not a library";
  absl::StatusOr<runtime::Module> bad = runtime::Module::Load(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cannot load module '" + junk + "'"), std::string::npos);
  absl::StatusOr<runtime::Module> m = codegen::Build({ScaledAdd()}, *target::Target::Parse("llvm"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Save((dir_ / "x.dll").string()).message(),
            "cannot save '" + (dir_ / "x.dll").string() + "': the name must end in .so or .o");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.dll"));
  EXPECT_EQ(m->GetFunction("nope").status().message(),
            "no function 'nope' in the module (it has: scaled_add)");
}

TEST_F(ModuleTest, AArch64ObjectIsEmittedButNotRun) {
  absl::StatusOr<runtime::Module> m = codegen::Build(
      {ScaledAdd()}, *target::Target::Parse("llvm -mtriple=aarch64-linux-gnu -mattr=+neon"));
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string path = (dir_ / "scaled_add.o").string();
  ASSERT_TRUE(m->Save(path).ok());
  std::ifstream in(path, std::ios::binary);
  unsigned char header[20] = {};
  in.read(reinterpret_cast<char*>(header), sizeof(header));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(header) + 1, 3), "ELF");
  EXPECT_EQ(header[18] | (header[19] << 8), 183);  // e_machine: EM_AARCH64
  absl::StatusOr<runtime::Function> f = m->GetFunction("scaled_add");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("compiled for aarch64"), std::string::npos) << f.status();
  EXPECT_NE(m->Save((dir_ / "scaled_add.so").string()).message().find("save the object (.o)"),
            std::string::npos);
}

TEST_F(ModuleTest, ArgumentMismatchesNameTheArgument) {
  absl::StatusOr<runtime::Module> m =
      codegen::Build({ScaledAdd()}, *target::Target::Parse("llvm -mcpu=native"));
  ASSERT_TRUE(m.ok());
  runtime::Function f = *m->GetFunction("scaled_add");
  ASSERT_TRUE(f({a_.dl(), b_.dl(), c_.dl(), int64_t{3}}).ok());
  ExpectComputed();
  auto message = [&](std::initializer_list<runtime::Arg> args) {
    return std::string(f(args).message());
  };
  const std::string prefix = "function 'scaled_add' ";
  EXPECT_EQ(message({a_.dl(), b_.dl(), c_.dl()}),
            prefix + "expects 4 arguments (A, B, C, n), got 3");
  runtime::NDArray ints = runtime::NDArray::Empty({8}, {kDLInt, 32, 1});
  EXPECT_EQ(message({a_.dl(), ints.dl(), c_.dl(), int64_t{3}}),
            prefix +
                "argument 1 (parameter 'B'): expects a float32 tensor of rank 1 (shape [8]), "
                "got int32 elements");
  runtime::NDArray short_b = runtime::NDArray::Empty({7}, kF32);
  EXPECT_EQ(message({a_.dl(), short_b.dl(), c_.dl(), int64_t{3}}),
            prefix + "argument 1 (parameter 'B'): shape[0] is 7, expected 8");
  EXPECT_EQ(message({a_.dl(), b_.dl(), c_.dl(), 3.0}),
            prefix + "argument 3 (parameter 'n'): expects an int64_t for int32");
  EXPECT_EQ(message({a_.dl(), b_.dl(), c_.dl(), int64_t{1} << 40}),
            prefix + "argument 3 (parameter 'n'): 1099511627776 does not fit int32");
  EXPECT_EQ(message({int64_t{0}, b_.dl(), c_.dl(), int64_t{3}}),
            prefix + "argument 0 (parameter 'A'): expects a tensor (a non-null DLTensor*)");
  // A view one float into b: not 64-byte aligned.
  DLTensor shifted = *b_.dl();
  shifted.byte_offset = 4;
  EXPECT_EQ(message({a_.dl(), &shifted, c_.dl(), int64_t{3}}),
            prefix +
                "argument 1 (parameter 'B'): data + byte_offset must be 64-byte aligned "
                "(NDArray::Empty allocates so)");
  // The output may not overlap an input: the code assumes it does not.
  EXPECT_EQ(message({a_.dl(), b_.dl(), a_.dl(), int64_t{3}}),
            prefix +
                "argument 2 (parameter 'C'): overlaps argument 0 (parameter 'A') in memory; "
                "the function writes 'C' and assumes no other argument aliases it");
  // Strides that are not compact.
  int64_t strides[2] = {16, 1};
  DLTensor strided = *a_.dl();
  strided.strides = strides;
  EXPECT_EQ(message({&strided, b_.dl(), c_.dl(), int64_t{3}}),
            prefix +
                "argument 0 (parameter 'A'): needs a compact row-major tensor, but strides[0] "
                "is 16 instead of 8");
}

}  // namespace
}  // namespace tessel::codegen::llvm_backend
