// Programs the accelerator cannot run, refused by the emitter by name: a buffer written outside
// a copy and a GEMM, an ALU result outside the accumulators. (Whole operators, and the buffers'
// limits, are tested with their schedules in compiler/ops/vdla.)
#include <gtest/gtest.h>

#include "compiler/codegen/vdla/emit_program.h"
#include "compiler/codegen/vdla/intrinsics.h"
#include "compiler/ir/op.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/compute.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::codegen::vdla {
namespace {

using te::Tensor;

// out = in + 1 through a stage `mid` in `scope`, its nest marked `pragma` unless empty.
absl::StatusOr<Program> Compile(const char* scope, const char* pragma) {
  const ir::DataType int8 = ir::DataType::Int(8);
  Tensor in = te::placeholder({16}, int8, "in");
  Tensor mid = te::compute(
      {16}, [&](const std::vector<ir::Var>& i) { return ir::cast(ir::kInt32, in(i[0])) + 1; },
      "mid");
  Tensor out = te::compute(
      {16}, [&](const std::vector<ir::Var>& i) { return ir::cast(int8, mid(i[0])); }, "out");
  schedule::Schedule s = schedule::create_schedule({out.op()});
  if (absl::Status st = s[mid].set_scope(scope); !st.ok()) return st;
  if (*pragma != '\0') {
    if (absl::Status st = s[mid].pragma(mid.op().as<te::ComputeOpNode>()->axis[0], pragma);
        !st.ok()) {
      return st;
    }
  }
  absl::StatusOr<ir::PrimFunc> f = transforms::Lower(s, {in, out}, "refused");
  if (!f.ok()) return f.status();
  return EmitProgram(*f, hardware::vdla::Config{});
}

TEST(VdlaRefusalTest, AStoreOutsideCopiesAndGemmsIsRefused) {
  absl::StatusOr<Program> p = Compile(kAccScope, "");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("buffer mid is written outside a copy and a GEMM"),
            std::string::npos)
      << p.status();
}

TEST(VdlaRefusalTest, AnAluResultOutsideTheAccumulatorsIsRefused) {
  absl::StatusOr<Program> p = Compile(kInputScope, kAlu);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("buffer mid is computed by the ALU but is not in vdla.acc: "
                                      "the ALU works on accumulators"),
            std::string::npos)
      << p.status();
}

}  // namespace
}  // namespace tessel::codegen::vdla
