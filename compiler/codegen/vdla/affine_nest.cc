#include "compiler/codegen/vdla/affine_nest.h"

#include <absl/strings/str_cat.h>

namespace tessel::codegen::vdla {

absl::StatusOr<AffineNest> AnalyseNest(const std::vector<const ir::ForNode*>& loops,
                                       const std::vector<ir::Expr>& exprs,
                                       const NestEvaluator& evaluator, bool merge_loops) {
  auto values = [&]() -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (const ir::Expr& e : exprs) {
      absl::StatusOr<int64_t> v = evaluator.eval(e);
      if (!v.ok()) return v.status();
      out.push_back(*v);
    }
    return out;
  };
  struct Unbind {
    const std::vector<const ir::ForNode*>& loops;
    const NestEvaluator& evaluator;
    ~Unbind() {
      for (const ir::ForNode* loop : loops) evaluator.bind(loop->loop_var.get(), std::nullopt);
    }
  } unbind{loops, evaluator};

  std::vector<int64_t> extents;
  for (const ir::ForNode* loop : loops) {
    absl::StatusOr<int64_t> min = evaluator.eval(loop->min);
    if (!min.ok()) return min.status();
    absl::StatusOr<int64_t> extent = evaluator.eval(loop->extent);
    if (!extent.ok()) return extent.status();
    if (*min != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("loop ", loop->loop_var->name, " does not start at 0"));
    }
    extents.push_back(*extent);
    evaluator.bind(loop->loop_var.get(), 0);
  }
  AffineNest nest;
  absl::StatusOr<std::vector<int64_t>> base = values();
  if (!base.ok()) return base.status();
  nest.base = *base;

  // Outermost first here; reversed below.
  std::vector<AffineDim> dims;
  for (size_t l = 0; l < loops.size(); ++l) {
    if (extents[l] == 1) continue;
    const ir::VarNode* var = loops[l]->loop_var.get();
    evaluator.bind(var, 1);
    absl::StatusOr<std::vector<int64_t>> one = values();
    evaluator.bind(var, extents[l] - 1);
    absl::StatusOr<std::vector<int64_t>> last = values();
    evaluator.bind(var, 0);
    if (!one.ok()) return one.status();
    if (!last.ok()) return last.status();
    AffineDim d{extents[l], {}, var};
    for (size_t k = 0; k < exprs.size(); ++k) {
      const int64_t step = (*one)[k] - nest.base[k];
      if ((*last)[k] - nest.base[k] != step * (extents[l] - 1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("its indices are not affine in loop ", loops[l]->loop_var->name));
      }
      d.steps.push_back(step);
    }
    dims.push_back(std::move(d));
  }
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    bool merge = merge_loops && !nest.dims.empty();
    for (size_t k = 0; merge && k < exprs.size(); ++k) {
      merge = it->steps[k] == nest.dims.back().steps[k] * nest.dims.back().extent;
    }
    if (merge) {
      nest.dims.back().extent *= it->extent;
      nest.dims.back().var = nullptr;
    } else {
      nest.dims.push_back(*it);
    }
  }
  return nest;
}

absl::StatusOr<AffineNest> InEntries(const AffineNest& nest, int64_t elements) {
  const size_t n = nest.base.size();
  const AffineDim inner =
      nest.dims.empty() ? AffineDim{1, std::vector<int64_t>(n, 1)} : nest.dims.front();
  bool whole = inner.extent % elements == 0;
  for (size_t k = 0; k < n; ++k) {
    whole = whole && inner.steps[k] == 1 && nest.base[k] % elements == 0;
  }
  if (!whole) {
    return absl::InvalidArgumentError(absl::StrCat("does not move whole entries of ", elements,
                                                   " elements in the same order on each side"));
  }
  AffineNest out;
  for (int64_t b : nest.base) out.base.push_back(b / elements);
  out.dims.push_back({inner.extent / elements, std::vector<int64_t>(n, 1), nullptr});
  for (size_t d = 1; d < nest.dims.size(); ++d) {
    AffineDim e{nest.dims[d].extent, {}, nest.dims[d].var};
    for (int64_t step : nest.dims[d].steps) {
      if (step % elements != 0) {
        return absl::InvalidArgumentError("steps by part of an entry");
      }
      e.steps.push_back(step / elements);
    }
    out.dims.push_back(std::move(e));
  }
  return out;
}

bool NextIteration(const std::vector<AffineDim>& dims, std::vector<int64_t>& at) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (++at[d] < dims[d].extent) return true;
    at[d] = 0;
  }
  return false;
}

}  // namespace tessel::codegen::vdla
