#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/graph/tensor_type.h"

// Nodes computing in blocked layouts (the layout pass, passes/alter_layout.h). An operator whose
// OpDef says `blocked_data` (conv2d, conv2d_transpose) may carry the attributes
//   "data_layout": "NCHW16c"   its data input (input 0) is NCHW{16}c: [n, c / 16, h, w, 16]
//   "out_layout":  "NCHW8c"    its output is NCHW{8}c
// ("NCHW", or no attribute: the logical layout). The node stays the same operator: its
// operator-library arguments and its reference are those of its logical inputs (LogicalView),
// which is what a tuning log's tasks are keyed by. A block divides the channels it blocks
// (values are never padded), so a blocked value holds exactly the logical one's elements.
namespace tessel::graph {

inline constexpr char kDataLayoutAttr[] = "data_layout";
inline constexpr char kOutLayoutAttr[] = "out_layout";

struct NodeLayout {
  int64_t in_block = 0;   // 0: input 0 is NCHW
  int64_t out_block = 0;  // 0: output 0 is NCHW

  bool blocked() const { return in_block > 0 || out_block > 0; }
  bool operator==(const NodeLayout& o) const {
    return in_block == o.in_block && out_block == o.out_block;
  }
};

// "NCHW" (0) or "NCHW{b}c" (b), the form layout_transform's arguments use.
std::string LayoutName(int64_t block);
// The block of a layout name; errors say what is wrong with it.
absl::StatusOr<int64_t> ParseLayoutName(const std::string& name);

// The node's layout from its attributes (none: NCHW in and out). Errors name the attribute.
absl::StatusOr<NodeLayout> NodeLayoutOf(const nlohmann::json& attrs);
// attrs with layout.in_block / out_block written (a 0 block: the attribute is removed).
nlohmann::json WithNodeLayout(nlohmann::json attrs, const NodeLayout& layout);

// NCHW [n, c, h, w] as NCHW{b}c [n, c / b, h, w, b]; InvalidArgument unless 4-d with b | c.
absl::StatusOr<TensorType> BlockedType(const TensorType& nchw, int64_t block);
// The NCHW type of an NCHW{b}c one; InvalidArgument unless 5-d with last extent b.
absl::StatusOr<TensorType> UnblockedType(const TensorType& blocked, int64_t block);

// What the operator sees of a node: its inputs' logical types and its attributes without the
// layout ones.
struct LogicalView {
  std::vector<TensorType> inputs;
  nlohmann::json attrs;
  NodeLayout layout;
};
// `blocked_data`: whether the operator takes layout attributes (OpDef::blocked_data); one that
// does not and has them is an error naming the attribute.
absl::StatusOr<LogicalView> LogicalViewOf(const std::string& op, bool blocked_data,
                                          const std::vector<TensorType>& inputs,
                                          const nlohmann::json& attrs);

}  // namespace tessel::graph
