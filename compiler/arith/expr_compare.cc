#include "compiler/arith/expr_compare.h"

#include <functional>
#include <string>
#include <vector>

#include "compiler/support/check.h"

namespace tessel::arith::internal {
namespace {

using ir::Expr;

template <typename T>
int Three(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Addresses order distinct objects that nothing else tells apart.
int ComparePointers(const void* a, const void* b) {
  const std::less<const void*> less;
  return less(a, b) ? -1 : (less(b, a) ? 1 : 0);
}

int CompareType(ir::DataType a, ir::DataType b) {
  if (int c = Three(static_cast<int>(a.code()), static_cast<int>(b.code()))) return c;
  if (int c = Three(a.bits(), b.bits())) return c;
  return Three(a.lanes(), b.lanes());
}

int CompareVar(const ir::VarNode* a, const ir::VarNode* b) {
  if (a == b) return 0;
  if (int c = a->name.compare(b->name)) return c < 0 ? -1 : 1;
  if (int c = CompareType(a->dtype, b->dtype)) return c;
  return ComparePointers(a, b);
}

int CompareAll(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (int c = Three(a.size(), b.size())) return c;
  for (size_t k = 0; k < a.size(); ++k) {
    if (int c = CompareExpr(a[k], b[k])) return c;
  }
  return 0;
}

int CompareBinary(const Expr& a, const Expr& b) {
  switch (a.kind()) {
#define TESSEL_X(name)                             \
  case ir::NodeKind::k##name: {                    \
    const auto* x = a.as<ir::name##Node>();        \
    const auto* y = b.as<ir::name##Node>();        \
    if (int c = CompareExpr(x->a, y->a)) return c; \
    return CompareExpr(x->b, y->b);                \
  }
    TESSEL_IR_BINARY_NODES(TESSEL_X)
#undef TESSEL_X
    default:
      TESSEL_UNREACHABLE() << "not a binary node: " << ir::NodeKindName(a.kind());
  }
}

}  // namespace

int CompareExpr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return 0;
  if (!a.defined() || !b.defined()) return a.defined() ? 1 : -1;
  if (int c = Three(static_cast<int>(a.kind()), static_cast<int>(b.kind()))) return c;
  if (int c = CompareType(a.dtype(), b.dtype())) return c;
  switch (a.kind()) {
    case ir::NodeKind::kIntImm:
      return Three(a.as<ir::IntImmNode>()->value, b.as<ir::IntImmNode>()->value);
    case ir::NodeKind::kFloatImm: {
      const double x = a.as<ir::FloatImmNode>()->value, y = b.as<ir::FloatImmNode>()->value;
      if (x == y) return 0;
      if (x < y) return -1;
      if (y < x) return 1;
      // At least one NaN: order NaNs after numbers, and all NaNs together.
      return Three(x != x, y != y);
    }
    case ir::NodeKind::kStringImm: {
      const int c = a.as<ir::StringImmNode>()->value.compare(b.as<ir::StringImmNode>()->value);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case ir::NodeKind::kVar:
      return CompareVar(a.as<ir::VarNode>(), b.as<ir::VarNode>());
    case ir::NodeKind::kCast:
      return CompareExpr(a.as<ir::CastNode>()->value, b.as<ir::CastNode>()->value);
    case ir::NodeKind::kNot:
      return CompareExpr(a.as<ir::NotNode>()->a, b.as<ir::NotNode>()->a);
    case ir::NodeKind::kSelect: {
      const auto* x = a.as<ir::SelectNode>();
      const auto* y = b.as<ir::SelectNode>();
      if (int c = CompareExpr(x->condition, y->condition)) return c;
      if (int c = CompareExpr(x->true_value, y->true_value)) return c;
      return CompareExpr(x->false_value, y->false_value);
    }
    case ir::NodeKind::kRamp: {
      const auto* x = a.as<ir::RampNode>();
      const auto* y = b.as<ir::RampNode>();
      if (int c = CompareExpr(x->base, y->base)) return c;
      return CompareExpr(x->stride, y->stride);
    }
    case ir::NodeKind::kBroadcast:
      return CompareExpr(a.as<ir::BroadcastNode>()->value, b.as<ir::BroadcastNode>()->value);
    case ir::NodeKind::kLet: {
      const auto* x = a.as<ir::LetNode>();
      const auto* y = b.as<ir::LetNode>();
      if (int c = CompareVar(x->var.get(), y->var.get())) return c;
      if (int c = CompareExpr(x->value, y->value)) return c;
      return CompareExpr(x->body, y->body);
    }
    case ir::NodeKind::kCall: {
      const auto* x = a.as<ir::CallNode>();
      const auto* y = b.as<ir::CallNode>();
      if (int c = Three(static_cast<int>(x->op), static_cast<int>(y->op))) return c;
      return CompareAll(x->args, y->args);
    }
    case ir::NodeKind::kBufferLoad: {
      const auto* x = a.as<ir::BufferLoadNode>();
      const auto* y = b.as<ir::BufferLoadNode>();
      if (!x->buffer.same_as(y->buffer)) {
        if (int c = CompareVar(x->buffer->data.get(), y->buffer->data.get())) return c;
        if (int c = ComparePointers(x->buffer.get(), y->buffer.get())) return c;
      }
      return CompareAll(x->indices, y->indices);
    }
    case ir::NodeKind::kProducerLoad: {
      const auto* x = a.as<ir::ProducerLoadNode>();
      const auto* y = b.as<ir::ProducerLoadNode>();
      if (x->producer.get() != y->producer.get()) {
        const int c = x->producer->producer_name().compare(y->producer->producer_name());
        if (c != 0) return c < 0 ? -1 : 1;
        return ComparePointers(x->producer.get(), y->producer.get());
      }
      return CompareAll(x->indices, y->indices);
    }
    case ir::NodeKind::kReduce: {
      const auto* x = a.as<ir::ReduceNode>();
      const auto* y = b.as<ir::ReduceNode>();
      if (int c = ComparePointers(x->combiner.get(), y->combiner.get())) return c;
      if (int c = Three(x->value_index, y->value_index)) return c;
      if (int c = Three(x->axis.size(), y->axis.size())) return c;
      for (size_t k = 0; k < x->axis.size(); ++k) {
        if (int c = ComparePointers(x->axis[k].get(), y->axis[k].get())) return c;
      }
      if (int c = CompareExpr(x->condition, y->condition)) return c;
      return CompareAll(x->source, y->source);
    }
    default:
      return CompareBinary(a, b);
  }
}

}  // namespace tessel::arith::internal
