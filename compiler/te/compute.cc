#include "compiler/te/compute.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/check.h"

namespace tessel::te {
namespace {

std::string AxisName(const std::vector<std::string>& names, size_t d) {
  static const char* kDefaults[] = {"i", "j", "l", "m", "n", "p"};
  if (d < names.size()) return names[d];
  if (d < std::size(kDefaults)) return kDefaults[d];
  return absl::StrCat("ax", d);
}

std::vector<ir::IterVar> MakeAxes(const std::vector<ir::Expr>& shape,
                                  const std::vector<std::string>& names) {
  std::vector<ir::IterVar> axes;
  for (size_t d = 0; d < shape.size(); ++d) {
    TESSEL_CHECK(shape[d].dtype().is_integer()) << "dimension " << d << " is not an integer";
    axes.emplace_back(ir::Var(AxisName(names, d), shape[d].dtype()),
                      ir::Range{ir::MakeZero(shape[d].dtype()), shape[d]},
                      ir::IterVarType::kDataPar);
  }
  return axes;
}

std::vector<ir::Var> AxisVars(const std::vector<ir::IterVar>& axes) {
  std::vector<ir::Var> vars;
  for (const ir::IterVar& iv : axes) vars.push_back(iv->var);
  return vars;
}

}  // namespace

Tensor placeholder(std::vector<ir::Expr> shape, ir::DataType dtype, std::string name) {
  auto node = MakeRef<PlaceholderOpNode>();
  node->name = std::move(name);
  node->shape = std::move(shape);
  node->dtype = dtype;
  return Operation(std::move(node)).output(0);
}

ir::IterVar reduce_axis(ir::Range dom, std::string name) {
  const ir::DataType t = dom.extent.dtype();
  if (!dom.min.defined()) dom.min = ir::MakeZero(t);
  return ir::IterVar(ir::Var(std::move(name), t), dom, ir::IterVarType::kCommReduce);
}

Tensor compute(std::vector<ir::Expr> shape, const FCompute& fcompute, std::string name,
               std::vector<std::string> axis_names) {
  std::vector<ir::IterVar> axes = MakeAxes(shape, axis_names);
  ir::Expr body = fcompute(AxisVars(axes));
  return MakeComputeOp(std::move(name), std::move(axes), {std::move(body)}).output(0);
}

std::vector<Tensor> compute_multi(std::vector<ir::Expr> shape, const FComputeMulti& fcompute,
                                  std::string name, std::vector<std::string> axis_names) {
  std::vector<ir::IterVar> axes = MakeAxes(shape, axis_names);
  std::vector<ir::Expr> bodies = fcompute(AxisVars(axes));
  Operation op = MakeComputeOp(std::move(name), std::move(axes), std::move(bodies));
  std::vector<Tensor> outputs;
  for (int i = 0; i < op->num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

}  // namespace tessel::te
