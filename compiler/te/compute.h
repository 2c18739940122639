#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/te/operation.h"

// Declaring operators as tensor expressions:
//
//   Tensor A = placeholder({n, l}, kFloat32, "A");
//   IterVar k = reduce_axis({0, l}, "k");
//   Tensor C = compute({n, m}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
//
// A compute's function receives one variable per output dimension (or all of them as a vector)
// and returns the element's value; it runs once, to build the index formula.
namespace tessel::te {

// An input tensor.
Tensor placeholder(std::vector<ir::Expr> shape, ir::DataType dtype = ir::kFloat32,
                   std::string name = "placeholder");

// A reduction axis over dom.
ir::IterVar reduce_axis(ir::Range dom, std::string name = "k");

using FCompute = std::function<ir::Expr(const std::vector<ir::Var>&)>;
using FComputeMulti = std::function<std::vector<ir::Expr>(const std::vector<ir::Var>&)>;

// One output. axis_names name the data-parallel axes (default i, j, l, m, n, p, then axN).
Tensor compute(std::vector<ir::Expr> shape, const FCompute& fcompute, std::string name = "compute",
               std::vector<std::string> axis_names = {});
// Several outputs of one shape from one loop nest: all plain expressions, or all reductions
// sharing axes and reducer (a multi-value reducer's outputs, e.g. argmax's index and value).
std::vector<Tensor> compute_multi(std::vector<ir::Expr> shape, const FComputeMulti& fcompute,
                                  std::string name = "compute",
                                  std::vector<std::string> axis_names = {});

// compute with a lambda taking one Var per dimension.
template <typename F>
requires(!std::is_convertible_v<F, FCompute>) Tensor
    compute(std::vector<ir::Expr> shape, F f, std::string name = "compute",
            std::vector<std::string> axis_names = {}) {
  return compute(
      std::move(shape),
      [f](const std::vector<ir::Var>& v) -> ir::Expr {
        if constexpr (std::is_invocable_v<F, ir::Var>) {
          return f(v.at(0));
        } else if constexpr (std::is_invocable_v<F, ir::Var, ir::Var>) {
          return f(v.at(0), v.at(1));
        } else if constexpr (std::is_invocable_v<F, ir::Var, ir::Var, ir::Var>) {
          return f(v.at(0), v.at(1), v.at(2));
        } else if constexpr (std::is_invocable_v<F, ir::Var, ir::Var, ir::Var, ir::Var>) {
          return f(v.at(0), v.at(1), v.at(2), v.at(3));
        } else if constexpr (std::is_invocable_v<F, ir::Var, ir::Var, ir::Var, ir::Var, ir::Var>) {
          return f(v.at(0), v.at(1), v.at(2), v.at(3), v.at(4));
        } else {
          static_assert(
              std::is_invocable_v<F, ir::Var, ir::Var, ir::Var, ir::Var, ir::Var, ir::Var>,
              "compute takes a function of one to six Vars");
          return f(v.at(0), v.at(1), v.at(2), v.at(3), v.at(4), v.at(5));
        }
      },
      std::move(name), std::move(axis_names));
}

}  // namespace tessel::te
