#include "compiler/graph/node_layout.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/strip.h>

#include "compiler/support/status_macros.h"

namespace tessel::graph {

std::string LayoutName(int64_t block) {
  return block == 0 ? "NCHW" : absl::StrCat("NCHW", block, "c");
}

absl::StatusOr<int64_t> ParseLayoutName(const std::string& name) {
  if (name == "NCHW") return 0;
  absl::string_view rest(name);
  int64_t block = 0;
  if (absl::ConsumePrefix(&rest, "NCHW") && absl::ConsumeSuffix(&rest, "c") &&
      absl::SimpleAtoi(rest, &block) && block > 0 &&
      rest.find_first_not_of("0123456789") == absl::string_view::npos) {
    return block;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", name, "' is not a layout a node computes in (NCHW or NCHW<b>c, b > 0)"));
}

absl::StatusOr<NodeLayout> NodeLayoutOf(const nlohmann::json& attrs) {
  NodeLayout layout;
  for (const auto& [key, block] : {std::pair{kDataLayoutAttr, &layout.in_block},
                                   std::pair{kOutLayoutAttr, &layout.out_block}}) {
    if (!attrs.is_object() || !attrs.contains(key)) continue;
    const nlohmann::json& v = attrs.at(key);
    if (!v.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute '", key, "' must be a string, got ", v.dump()));
    }
    absl::StatusOr<int64_t> b = ParseLayoutName(v.get<std::string>());
    if (!b.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute '", key, "': ", b.status().message()));
    }
    *block = *b;
  }
  return layout;
}

nlohmann::json WithNodeLayout(nlohmann::json attrs, const NodeLayout& layout) {
  attrs.erase(kDataLayoutAttr);
  attrs.erase(kOutLayoutAttr);
  if (layout.in_block > 0) attrs[kDataLayoutAttr] = LayoutName(layout.in_block);
  if (layout.out_block > 0) attrs[kOutLayoutAttr] = LayoutName(layout.out_block);
  return attrs;
}

absl::StatusOr<TensorType> BlockedType(const TensorType& nchw, int64_t block) {
  const std::vector<int64_t>& s = nchw.shape;
  if (s.size() != 4 || block <= 0 || s[1] % block != 0) {
    return absl::InvalidArgumentError(absl::StrCat("a ", nchw.ToString(), " value cannot be ",
                                                   LayoutName(block), " (4-d, ", block,
                                                   " dividing its channels)"));
  }
  return TensorType{{s[0], s[1] / block, s[2], s[3], block}, nchw.dtype};
}

absl::StatusOr<TensorType> UnblockedType(const TensorType& blocked, int64_t block) {
  const std::vector<int64_t>& s = blocked.shape;
  if (s.size() != 5 || s[4] != block) {
    return absl::InvalidArgumentError(absl::StrCat("a ", blocked.ToString(), " value is not ",
                                                   LayoutName(block), " ([n, c / ", block,
                                                   ", h, w, ", block, "])"));
  }
  return TensorType{{s[0], s[1] * block, s[2], s[3]}, blocked.dtype};
}

absl::StatusOr<LogicalView> LogicalViewOf(const std::string& op, bool blocked_data,
                                          const std::vector<TensorType>& inputs,
                                          const nlohmann::json& attrs) {
  LogicalView view{inputs, attrs, {}};
  TESSEL_ASSIGN_OR_RETURN(view.layout, NodeLayoutOf(attrs));
  if (!view.layout.blocked()) {
    if (attrs.is_object()) view.attrs = WithNodeLayout(attrs, {});
    return view;
  }
  if (!blocked_data) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": attribute '", view.layout.in_block > 0 ? kDataLayoutAttr : kOutLayoutAttr,
        "': this operator computes in NCHW only"));
  }
  view.attrs = WithNodeLayout(attrs, {});
  if (view.layout.in_block > 0 && !inputs.empty()) {
    absl::StatusOr<TensorType> t = UnblockedType(inputs[0], view.layout.in_block);
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": input 0 (data): ", t.status().message()));
    }
    view.inputs[0] = *t;
  }
  return view;
}

}  // namespace tessel::graph
