#include "compiler/ops/cuda/conv2d_gpu_testing.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/testing/test_target.h"
#include "compiler/transforms/pipeline.h"

namespace tessel::ops::cuda::testing {

const Template& Get(const std::string& name) {
  absl::StatusOr<const Template*> t = FindTemplate(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

ops::testing::CheckOptions OnOpencl() {
  return {.atol = 2e-3, .rtol = 2e-3, .target = tessel::testing::ParseTarget("opencl")};
}

ops::testing::CheckOptions OnCuda() {
  return {.atol = 2e-3, .rtol = 2e-3, .target = tessel::testing::ParseTarget("cuda -arch=sm_90")};
}

int64_t SharedBytesOf(const ir::PrimFunc& func) {
  int64_t bytes = 0;
  ir::PreOrderVisit(
      func->body, [](const ir::Expr&) {},
      [&](const ir::Stmt& s) {
        const auto* alloc = s.as<ir::AllocateNode>();
        if (alloc == nullptr || alloc->buffer->scope != "shared") return;
        int64_t elements = 1;
        for (const ir::Expr& extent : alloc->buffer->shape) {
          const int64_t* value = ir::AsConstInt(extent);
          TESSEL_CHECK(value != nullptr)
              << "shared buffer " << alloc->buffer->name << " of non-constant size";
          elements *= *value;
        }
        bytes += elements * alloc->buffer->dtype.bytes();
      });
  return bytes;
}

absl::StatusOr<int64_t> ProgramSharedBytes(const Template& t, const OpArgs& args,
                                           const search::Config& config,
                                           const target::Target& target) {
  TESSEL_ASSIGN_OR_RETURN(target::TargetFacts facts, target::DescribeTarget(target));
  TESSEL_ASSIGN_OR_RETURN(OpProgram program, t.instantiate(config, args, facts));
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc func,
                          transforms::Lower(program.schedule, program.args, "op"));
  return SharedBytesOf(func);
}

}  // namespace tessel::ops::cuda::testing
