#include "baselines/torch/layout.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <map>

#include "compiler/support/status_macros.h"

namespace tessel::baselines::internal {
namespace {

struct LayoutDim {
  char axis;          // the dimension's upper-case letter
  int64_t block = 0;  // 0: the whole dimension (or what its block leaves); else the block extent
};

absl::Status LayoutError(const std::string& what, const std::string& key, const std::string& layout,
                         const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": argument '", key, "' (\"", layout, "\") ", why));
}

absl::StatusOr<std::vector<LayoutDim>> ParseLayout(const std::string& what, const std::string& key,
                                                   const std::string& layout) {
  std::vector<LayoutDim> dims;
  std::map<char, int> wholes, blocks;
  for (size_t i = 0; i < layout.size();) {
    const char ch = layout[i];
    if (ch >= 'A' && ch <= 'Z') {
      if (wholes[ch]++ > 0) {
        return LayoutError(what, key, layout, absl::StrCat("repeats ", std::string(1, ch)));
      }
      dims.push_back({ch, 0});
      ++i;
      continue;
    }
    if (ch < '0' || ch > '9') {
      return LayoutError(what, key, layout,
                         "is not a layout (upper-case dimensions, digits + lower-case blocks)");
    }
    int64_t factor = 0;
    while (i < layout.size() && layout[i] >= '0' && layout[i] <= '9') {
      factor = factor * 10 + (layout[i] - '0');
      if (factor > (int64_t{1} << 40)) return LayoutError(what, key, layout, "has a huge block");
      ++i;
    }
    if (i == layout.size() || layout[i] < 'a' || layout[i] > 'z') {
      return LayoutError(what, key, layout, "has a block size without its lower-case dimension");
    }
    if (factor < 1) return LayoutError(what, key, layout, "has a block of extent 0");
    const char axis = static_cast<char>(layout[i] - 'a' + 'A');
    if (blocks[axis]++ > 0) {
      return LayoutError(what, key, layout,
                         absl::StrCat("blocks ", std::string(1, axis), " twice"));
    }
    dims.push_back({axis, factor});
    ++i;
  }
  for (const auto& [axis, count] : blocks) {
    if (wholes.count(axis) == 0) {
      return LayoutError(what, key, layout,
                         absl::StrCat("blocks ", std::string(1, axis), " without having it"));
    }
  }
  if (dims.empty()) return LayoutError(what, key, layout, "is empty");
  return dims;
}

// The index of the whole dimension of `axis` and of its block (-1 when none) in dims.
std::pair<int64_t, int64_t> Find(const std::vector<LayoutDim>& dims, char axis) {
  int64_t whole = -1, block = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].axis != axis) continue;
    (dims[i].block == 0 ? whole : block) = static_cast<int64_t>(i);
  }
  return {whole, block};
}

}  // namespace

absl::StatusOr<LayoutPlan> PlanLayoutTransform(const std::string& what,
                                               const std::vector<int64_t>& shape,
                                               const std::string& src, const std::string& dst) {
  TESSEL_ASSIGN_OR_RETURN(const std::vector<LayoutDim> s, ParseLayout(what, "src", src));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<LayoutDim> d, ParseLayout(what, "dst", dst));
  if (shape.size() != s.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": argument 'shape' has ", shape.size(),
                                                   " dimensions, layout \"", src, "\" has ",
                                                   s.size()));
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].block != 0 && shape[i] != s[i].block) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": argument 'shape' has extent ", shape[i], " at dimension ", i,
                       ", the block of layout \"", src, "\" there is ", s[i].block));
    }
  }
  std::string src_axes, dst_axes;
  for (const LayoutDim& x : s) {
    if (x.block == 0) src_axes += x.axis;
  }
  for (const LayoutDim& x : d) {
    if (x.block == 0) dst_axes += x.axis;
  }
  if (src_axes.size() != dst_axes.size() ||
      !std::is_permutation(src_axes.begin(), src_axes.end(), dst_axes.begin())) {
    return LayoutError(what, "dst", dst,
                       absl::StrCat("has other dimensions than 'src' (\"", src, "\")"));
  }

  LayoutPlan plan;
  std::map<char, int64_t> extent;
  for (char axis : src_axes) {
    const auto [whole, block] = Find(s, axis);
    plan.to_grouped.push_back(whole);
    if (block >= 0) plan.to_grouped.push_back(block);
    extent[axis] = shape[whole] * (block >= 0 ? shape[block] : 1);
    plan.primal.push_back(extent[axis]);
  }
  // dst's dimensions grouped: position of each (axis, is_block) in dst_grouped.
  std::map<std::pair<char, bool>, int64_t> grouped_index;
  for (char axis : dst_axes) {
    plan.to_dst_primal.push_back(static_cast<int64_t>(src_axes.find(axis)));
    const auto [whole, block] = Find(d, axis);
    const int64_t factor = block >= 0 ? d[block].block : 1;
    if (extent[axis] % factor != 0) {
      return LayoutError(what, "dst", dst,
                         absl::StrCat("blocks ", std::string(1, axis), " by ", factor,
                                      ", which does not divide its extent ", extent[axis]));
    }
    grouped_index[{axis, false}] = static_cast<int64_t>(plan.dst_grouped.size());
    plan.dst_grouped.push_back(extent[axis] / factor);
    if (block >= 0) {
      grouped_index[{axis, true}] = static_cast<int64_t>(plan.dst_grouped.size());
      plan.dst_grouped.push_back(factor);
    }
  }
  for (const LayoutDim& x : d) {
    const int64_t i = grouped_index.at({x.axis, x.block != 0});
    plan.to_dst.push_back(i);
    plan.out_shape.push_back(plan.dst_grouped[i]);
  }
  return plan;
}

}  // namespace tessel::baselines::internal
