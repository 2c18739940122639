#include "compiler/ops/mali/work_group.h"

#include <absl/strings/str_cat.h>

#include <algorithm>

#include "compiler/ops/nn/shape.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::mali {

std::vector<int64_t> WorkGroupExtents() { return {1, 2, 4, 8, 16, 32, 64}; }

int64_t FloorPow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

int64_t CeilPow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void DefineWorkGroupKnob(search::ConfigSpace& space, const std::string& name, int64_t blocks) {
  std::vector<int64_t> values;
  for (int64_t v : WorkGroupExtents()) {
    if (v <= CeilPow2(blocks)) values.push_back(v);
  }
  space.define_knob(name, values);
}

absl::StatusOr<WorkGroupLoops> BindWorkGroups(schedule::Stage stage,
                                              const std::vector<ir::IterVar>& axes,
                                              const std::vector<int64_t>& extents) {
  TESSEL_CHECK(axes.size() == extents.size() && !axes.empty() && axes.size() <= 3)
      << "work-groups over " << axes.size() << " axes";
  WorkGroupLoops loops;
  for (size_t d = 0; d < axes.size(); ++d) {
    TESSEL_ASSIGN_OR_RETURN(auto split, stage.split(axes[d], nn::Dim(extents[d])));
    loops.groups.push_back(split.outer);
    loops.items.push_back(split.inner);
  }
  std::vector<ir::IterVar> order = loops.groups;
  order.insert(order.end(), loops.items.begin(), loops.items.end());
  for (const ir::IterVar& leaf : stage->leaf_iter_vars) {
    if (std::none_of(order.begin(), order.end(),
                     [&](const ir::IterVar& o) { return o.same_as(leaf); })) {
      order.push_back(leaf);
    }
  }
  TESSEL_RETURN_IF_ERROR(stage.reorder(order));
  static constexpr const char* kDims[] = {"z", "y", "x"};
  const size_t skip = 3 - axes.size();
  for (size_t d = 0; d < axes.size(); ++d) {
    TESSEL_RETURN_IF_ERROR(stage.bind(loops.groups[d], absl::StrCat("blockIdx.", kDims[skip + d])));
    TESSEL_RETURN_IF_ERROR(stage.bind(loops.items[d], absl::StrCat("threadIdx.", kDims[skip + d])));
  }
  return loops;
}

int64_t AccumulatorCap(const target::GpuFacts& gpu) {
  return std::max<int64_t>(4, gpu.registers_per_thread / 2);
}

}  // namespace tessel::ops::mali
