#include "search/measure/testing/fault_templates.h"

#include <absl/status/status.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "compiler/ir/op.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/template.h"
#include "compiler/ops/x86/host_reshape.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::search::testing {
namespace {

absl::StatusOr<std::vector<int64_t>> ReadShape(const ops::OpArgs& args) {
  ops::ArgReader reader(kFaultTemplate, args);
  return reader.Ints("shape", -1);
}

// The output for `behaviour` over x of n elements (flat).
te::Tensor Output(FaultBehaviour behaviour, const te::Tensor& x, int64_t n) {
  const ir::Expr zero = ir::FloatImm(ir::kFloat32, 0);
  switch (behaviour) {
    case kSegfault:
      return te::compute(
          x.shape(), [&](ir::Var i) { return ir::max(x(i + 1500000000), zero); }, "out");
    case kHang: {
      ir::IterVar k1 = te::reduce_axis({0, 1 << 30}, "k1");
      ir::IterVar k2 = te::reduce_axis({0, 1 << 30}, "k2");
      const ir::Expr extent = ir::IntImm(ir::kInt32, n);
      te::Tensor spin = te::compute(
          x.shape(),
          [&](ir::Var i) {
            return te::sum(x((i + k1 + k2) % extent), {k1, k2});
          },
          "spin");
      return te::compute(
          x.shape(), [&](ir::Var i) { return ir::max(x(i), zero) + spin(i); }, "out");
    }
    case kWrong:
      return te::compute(
          x.shape(),
          [&](ir::Var i) { return ir::max(x(i), zero) + ir::FloatImm(ir::kFloat32, 0.5); }, "out");
    default:
      return te::compute(
          x.shape(), [&](ir::Var i) { return ir::max(x(i), zero); }, "out");
  }
}

absl::StatusOr<ops::OpProgram> Instantiate(const Config& config, const ops::OpArgs& args,
                                           const target::TargetFacts&) {
  const auto behaviour = static_cast<FaultBehaviour>(config.knob("behaviour"));
  if (behaviour == kReject) {
    return absl::InvalidArgumentError("fault_injection.test rejects behaviour 4 on purpose");
  }
  if (behaviour == kAbort) std::abort();
  if (behaviour == kBuildHang) std::this_thread::sleep_for(std::chrono::minutes(10));
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(args));
  const int64_t n = ops::nn::NumElements(shape);
  te::Tensor x = te::placeholder({ir::IntImm(ir::kInt32, n)}, ir::kFloat32, "x");
  te::Tensor out = Output(behaviour, x, n);
  ops::OpProgram p;
  p.schedule = schedule::create_schedule({out.op()});
  p.args = {x, out};
  p.flops = static_cast<double>(n);
  p.logical_inputs = {{"x", shape}};
  p.logical_outputs = {{"out", shape}};
  // The program works on the flat view.
  p.prepare = ops::x86::ReshapeArrays({{n}});
  p.finish = ops::x86::ReshapeArrays({shape});
  return p;
}

ops::Template MakeFaultTemplate() {
  ops::Template t;
  t.name = kFaultTemplate;
  t.op = "relu";
  t.summary = "relu that crashes, hangs or errs on chosen configs (tests only)";
  t.space = [](const ops::OpArgs& args, const target::TargetFacts&) -> absl::StatusOr<ConfigSpace> {
    TESSEL_RETURN_IF_ERROR(ReadShape(args).status());
    ConfigSpace space;
    std::vector<int64_t> values;
    for (int64_t b = 0; b < kNumFaultBehaviours; ++b) values.push_back(b);
    space.define_knob("behaviour", values);
    return space;
  };
  t.fallback = [](const ConfigSpace& space, const ops::OpArgs&, const target::TargetFacts&) {
    return *space.FromJson(FaultConfig(kCorrect));
  };
  t.instantiate = Instantiate;
  return t;
}

TESSEL_REGISTER_TEMPLATE("cpu", MakeFaultTemplate());

}  // namespace
}  // namespace tessel::search::testing
