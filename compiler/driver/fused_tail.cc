#include "compiler/driver/fused_tail.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "compiler/graph/node_layout.h"
#include "compiler/graph/tensor_type.h"
#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/ops/op_args.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::driver {
namespace {

using graph::ValueId;

// Where a tail node's operand comes from.
struct Operand {
  enum class Kind { kValue, kNode, kInput };
  Kind kind = Kind::kValue;
  int index = 0;  // kNode: into TailProgram::nodes; kInput: into TailProgram::inputs
};

// One tail node: an activation (unary) or a binary operator.
struct TailNode {
  std::function<ir::Expr(ir::Expr)> unary;
  std::optional<ops::nn::BinaryOp> binary;
  std::vector<Operand> operands;
};

// What OutputTail::apply evaluates (ops::BroadcastingTail reads the inputs); shared by the
// copies of the closure.
struct TailProgram {
  std::vector<TailNode> nodes;  // the last one gives the stored value
};

ir::Expr Evaluate(const TailProgram& p, const ir::Expr& value, const std::vector<ir::Expr>& reads) {
  std::vector<ir::Expr> exprs;
  exprs.reserve(p.nodes.size());
  auto operand = [&](const Operand& o) -> ir::Expr {
    switch (o.kind) {
      case Operand::Kind::kValue:
        return value;
      case Operand::Kind::kNode:
        return exprs[static_cast<size_t>(o.index)];
      case Operand::Kind::kInput:
        return reads[static_cast<size_t>(o.index)];
    }
    return value;
  };
  for (const TailNode& n : p.nodes) {
    if (n.binary) {
      exprs.push_back(
          ops::nn::BinaryElement(*n.binary, operand(n.operands[0]), operand(n.operands[1])));
    } else {
      exprs.push_back(n.unary(operand(n.operands[0])));
    }
  }
  return exprs.back();
}

absl::Status NotExpressible(const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("not expressible as a tail: ", why));
}

// The element function of unary node `node` (nn/unary.h), its attributes read as the templates
// read them.
absl::StatusOr<std::function<ir::Expr(ir::Expr)>> ActivationOf(const graph::Node& node) {
  const ops::nn::UnaryOp* unary = ops::nn::FindUnaryOp(node.op);
  if (unary == nullptr)
    return NotExpressible(absl::StrCat("node '", node.name, "' (", node.op, ")"));
  return unary->element(ops::ArgReader(node.name, node.attrs));
}

bool IsActivation(const std::string& op) { return ops::nn::FindUnaryOp(op) != nullptr; }

}  // namespace

bool IsTailOperator(const std::string& op) {
  return IsActivation(op) || ops::nn::FindBinaryOp(op).has_value();
}

bool IsChannelStrided(const std::vector<int64_t>& shape, const std::vector<int64_t>& out) {
  if (out.size() != 4 || shape.size() > 4) return false;
  std::vector<int64_t> aligned(4 - shape.size(), 1);
  aligned.insert(aligned.end(), shape.begin(), shape.end());
  return aligned[1] > 1 && (aligned[2] > 1 || aligned[3] > 1);
}

absl::StatusOr<FusedTail> BuildFusedTail(const graph::Graph& g, int master,
                                         const std::vector<int>& nodes, const TailRules& rules) {
  const graph::Node& m = g.nodes.at(static_cast<size_t>(master));
  if (m.outputs.size() != 1)
    return NotExpressible(absl::StrCat("master '", m.name, "' has ", m.outputs.size(), " outputs"));
  if (nodes.size() < 2) return NotExpressible("no tail nodes");
  const graph::Node& last = g.nodes.at(static_cast<size_t>(nodes.back()));
  if (last.outputs.size() != 1) {
    return NotExpressible(absl::StrCat("node '", last.name, "' has several outputs"));
  }
  const graph::TensorType& out = g.type(last.outputs[0]);
  const graph::TensorType& master_out = g.type(m.outputs[0]);
  if (master_out != out) {
    return NotExpressible(absl::StrCat("master '", m.name, "' gives ", master_out.ToString(),
                                       ", the group ", out.ToString()));
  }
  auto program = std::make_shared<TailProgram>();
  FusedTail result;
  std::vector<std::string> input_names;
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<int> node_slot(g.nodes.size(), -1);  // graph node -> index into program->nodes
  std::vector<int64_t> tree_size;                  // per program node
  std::vector<std::string> texts;
  auto in_group = [&](int n) { return std::binary_search(nodes.begin(), nodes.end(), n); };

  for (int n : nodes) {
    if (n == master) continue;
    const graph::Node& node = g.nodes[static_cast<size_t>(n)];
    if (!IsTailOperator(node.op)) {
      return NotExpressible(absl::StrCat("node '", node.name, "' (", node.op, ")"));
    }
    if (node.outputs.size() != 1) {
      return NotExpressible(absl::StrCat("node '", node.name, "' has several outputs"));
    }
    TailNode t;
    std::vector<std::string> operand_texts;
    int64_t size = 1;
    for (ValueId id : node.inputs) {
      const graph::Value& v = g.value(id);
      if (!runtime::SameDLType(v.type.dtype, graph::kFloat32)) {
        return NotExpressible(absl::StrCat("'", v.name, "' is ", v.type.ToString()));
      }
      Operand o;
      if (v.kind == graph::ValueKind::kNodeOutput && v.node == master) {
        o.kind = Operand::Kind::kValue;
        operand_texts.push_back("v");
      } else if (v.kind == graph::ValueKind::kNodeOutput && in_group(v.node)) {
        o.kind = Operand::Kind::kNode;
        o.index = node_slot[static_cast<size_t>(v.node)];
        size += tree_size[static_cast<size_t>(o.index)];
        operand_texts.push_back(absl::StrCat("t", o.index));
      } else {
        if (v.type.shape.size() > out.shape.size()) {
          return NotExpressible(absl::StrCat("'", v.name, "' does not broadcast to the output"));
        }
        if (!rules.channel_strided_inputs && IsChannelStrided(v.type.shape, out.shape)) {
          return NotExpressible(absl::StrCat("'", v.name, "' is channel-strided"));
        }
        auto it = std::find(result.inputs.begin(), result.inputs.end(), id);
        o.kind = Operand::Kind::kInput;
        o.index = static_cast<int>(it - result.inputs.begin());
        if (it == result.inputs.end()) {
          result.inputs.push_back(id);
          input_names.push_back(absl::StrCat("tail", o.index));
          input_shapes.push_back(v.type.shape);
        }
        operand_texts.push_back(absl::StrCat("i", o.index));
      }
      t.operands.push_back(o);
    }
    if (IsActivation(node.op)) {
      absl::StatusOr<std::function<ir::Expr(ir::Expr)>> f = ActivationOf(node);
      if (!f.ok()) return f.status();
      t.unary = *std::move(f);
    } else {
      t.binary = ops::nn::FindBinaryOp(node.op);
    }
    if (size > kMaxTailTreeSize) {
      return NotExpressible(
          absl::StrCat("the tail's expression exceeds ", kMaxTailTreeSize, " operations"));
    }
    node_slot[static_cast<size_t>(n)] = static_cast<int>(program->nodes.size());
    tree_size.push_back(size);
    program->nodes.push_back(std::move(t));
    const nlohmann::json attrs = node.attrs.empty() ? nlohmann::json() : node.attrs;
    texts.push_back(absl::StrCat(node.op, attrs.is_null() ? "" : attrs.dump(), "(",
                                 absl::StrJoin(operand_texts, ","), ")"));
  }
  if (node_slot[static_cast<size_t>(nodes.back())] != static_cast<int>(program->nodes.size()) - 1) {
    return NotExpressible(absl::StrCat("the master '", m.name, "' is the group's last node"));
  }
  std::vector<std::string> input_texts;
  for (size_t i = 0; i < result.inputs.size(); ++i) {
    input_texts.push_back(absl::StrCat("i", i, "=", g.type(result.inputs[i]).ToString()));
  }
  result.signature = absl::StrCat(absl::StrJoin(texts, ";"), " ", absl::StrJoin(input_texts, " "));
  result.tail =
      ops::BroadcastingTail(out.shape, input_names, input_shapes,
                            [program](ir::Expr value, const std::vector<ir::Expr>& reads) {
                              return Evaluate(*program, value, reads);
                            });
  // A blocked master output (node_layout.h): the tail runs over its blocked index.
  TESSEL_ASSIGN_OR_RETURN(graph::NodeLayout layout, graph::NodeLayoutOf(m.attrs));
  result.tail.program_index = layout.out_block > 0;
  if (result.tail.program_index) absl::StrAppend(&result.signature, " blocked");
  return result;
}

}  // namespace tessel::driver
