#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/op.h"

// Reductions in tensor expressions: sum, max and min, and user-defined commutative reducers of
// tuples. A reducer's combine function must be commutative and associative with the given
// identity; schedules reorder and split reductions on that assumption.
namespace tessel::te {

using FCombine = std::function<std::vector<ir::Expr>(const std::vector<ir::Var>& lhs,
                                                     const std::vector<ir::Var>& rhs)>;
using FIdentity = std::function<std::vector<ir::Expr>(const std::vector<ir::DataType>& types)>;

class Reducer {
 public:
  Reducer(FCombine combine, FIdentity identity, std::string name);

  // The reduction of source over axis where `where` holds (all of axis when undefined).
  ir::Expr operator()(ir::Expr source, std::vector<ir::IterVar> axis,
                      ir::Expr where = ir::Expr()) const;
  // A tuple reduction: one Reduce per element, sharing axes and one combiner, for compute_multi.
  std::vector<ir::Expr> operator()(std::vector<ir::Expr> sources, std::vector<ir::IterVar> axis,
                                   ir::Expr where = ir::Expr()) const;

 private:
  FCombine combine_;
  FIdentity identity_;
  std::string name_;
};

// A user-defined commutative reducer.
Reducer comm_reducer(FCombine combine, FIdentity identity, std::string name = "reducer");

ir::Expr sum(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where = ir::Expr());
ir::Expr max(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where = ir::Expr());
ir::Expr min(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where = ir::Expr());

}  // namespace tessel::te
