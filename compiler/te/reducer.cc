#include "compiler/te/reducer.h"

#include <absl/strings/str_cat.h>

#include "compiler/support/check.h"

namespace tessel::te {

Reducer::Reducer(FCombine combine, FIdentity identity, std::string name)
    : combine_(std::move(combine)), identity_(std::move(identity)), name_(std::move(name)) {}

std::vector<ir::Expr> Reducer::operator()(std::vector<ir::Expr> sources,
                                          std::vector<ir::IterVar> axis, ir::Expr where) const {
  TESSEL_CHECK(!sources.empty()) << name_ << " of nothing";
  std::vector<ir::Var> lhs, rhs;
  std::vector<ir::DataType> types;
  for (size_t k = 0; k < sources.size(); ++k) {
    const ir::DataType t = sources[k].dtype();
    types.push_back(t);
    lhs.emplace_back(absl::StrCat("x", k), t);
    rhs.emplace_back(absl::StrCat("y", k), t);
  }
  std::vector<ir::Expr> result = combine_(lhs, rhs);
  std::vector<ir::Expr> identity = identity_(types);
  TESSEL_CHECK(result.size() == sources.size() && identity.size() == sources.size())
      << name_ << ": combine and identity must give one value per source";
  for (size_t k = 0; k < sources.size(); ++k) {
    result[k] = ir::cast(types[k], result[k]);
    identity[k] = ir::cast(types[k], identity[k]);
  }
  for (const ir::IterVar& iv : axis) {
    TESSEL_CHECK(iv->type == ir::IterVarType::kCommReduce)
        << name_ << " over " << iv->var.name() << ", which is not a reduction axis";
  }
  ir::CommReducer combiner(lhs, rhs, std::move(result), std::move(identity));
  std::vector<ir::Expr> reduces;
  for (size_t k = 0; k < sources.size(); ++k) {
    reduces.push_back(ir::Reduce(combiner, sources, axis, where, static_cast<int>(k)));
  }
  return reduces;
}

ir::Expr Reducer::operator()(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where) const {
  return (*this)(std::vector<ir::Expr>{std::move(source)}, std::move(axis), std::move(where))[0];
}

Reducer comm_reducer(FCombine combine, FIdentity identity, std::string name) {
  return Reducer(std::move(combine), std::move(identity), std::move(name));
}

ir::Expr sum(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where) {
  static const Reducer reducer(
      [](const std::vector<ir::Var>& x, const std::vector<ir::Var>& y) {
        return std::vector<ir::Expr>{x[0] + y[0]};
      },
      [](const std::vector<ir::DataType>& t) { return std::vector<ir::Expr>{ir::MakeZero(t[0])}; },
      "sum");
  return reducer(std::move(source), std::move(axis), std::move(where));
}

ir::Expr max(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where) {
  static const Reducer reducer(
      [](const std::vector<ir::Var>& x, const std::vector<ir::Var>& y) {
        return std::vector<ir::Expr>{ir::max(x[0], y[0])};
      },
      [](const std::vector<ir::DataType>& t) { return std::vector<ir::Expr>{ir::MinValue(t[0])}; },
      "max");
  return reducer(std::move(source), std::move(axis), std::move(where));
}

ir::Expr min(ir::Expr source, std::vector<ir::IterVar> axis, ir::Expr where) {
  static const Reducer reducer(
      [](const std::vector<ir::Var>& x, const std::vector<ir::Var>& y) {
        return std::vector<ir::Expr>{ir::min(x[0], y[0])};
      },
      [](const std::vector<ir::DataType>& t) { return std::vector<ir::Expr>{ir::MaxValue(t[0])}; },
      "min");
  return reducer(std::move(source), std::move(axis), std::move(where));
}

}  // namespace tessel::te
