#include "compiler/ops/nn/batch_matmul.h"

#include <vector>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/te/compute.h"
#include "compiler/te/reducer.h"

namespace tessel::ops::nn {

using ir::Expr;
using ir::Var;

te::Tensor BatchMatmul(const te::Tensor& a, const te::Tensor& b, const char* name) {
  const int nd = a.ndim();
  TESSEL_CHECK((nd == 2 || nd == 3) && b.ndim() == nd) << "matmul of " << a.name();
  ir::IterVar r = te::reduce_axis({0, a.shape()[nd - 1]}, "k");
  std::vector<Expr> shape(a.shape().begin(), a.shape().end() - 1);
  shape.push_back(b.shape()[nd - 1]);
  return te::compute(
      shape,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> ai(v.begin(), v.end() - 1), bi(v.begin(), v.end() - 2);
        ai.push_back(r);
        bi.push_back(r);
        bi.push_back(v.back());
        return te::sum(a(ai) * b(bi), {r});
      },
      name);
}

te::Tensor BatchMatmulPacked(const te::Tensor& a, const te::Tensor& packed, int64_t n,
                             const char* name) {
  const int nd = a.ndim();
  TESSEL_CHECK((nd == 2 || nd == 3) && packed.ndim() == nd + 1) << "packed matmul of " << a.name();
  const int64_t* bn_ptr = ir::AsConstInt(packed.shape().back());
  TESSEL_CHECK(bn_ptr != nullptr) << "panel width of " << packed.name();
  const int bn = static_cast<int>(*bn_ptr);
  ir::IterVar r = te::reduce_axis({0, a.shape()[nd - 1]}, "k");
  std::vector<Expr> shape(a.shape().begin(), a.shape().end() - 1);
  shape.push_back(ir::IntImm(ir::kInt32, n));
  return te::compute(
      shape,
      [&](const std::vector<Var>& v) {
        std::vector<Expr> ai(v.begin(), v.end() - 1), pi(v.begin(), v.end() - 2);
        ai.push_back(r);
        const Var& j = v.back();
        pi.insert(pi.end(), {j / bn, r, j % bn});
        return te::sum(a(ai) * packed(pi), {r});
      },
      name);
}

}  // namespace tessel::ops::nn
