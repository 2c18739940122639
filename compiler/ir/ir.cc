// Out-of-line pieces of the IR's handles and tables (node.h, var.h, buffer.h, expr.h, stmt.h,
// intrinsic.h).
#include "compiler/ir/op.h"
#include "compiler/ir/stmt.h"
#include "compiler/support/check.h"

namespace tessel::ir {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
#define TESSEL_X(name)    \
  case NodeKind::k##name: \
    return #name;
    TESSEL_IR_EXPR_NODES(TESSEL_X) TESSEL_IR_STMT_NODES(TESSEL_X)
#undef TESSEL_X
  }
  return "?";
}

const char* IntrinsicName(Intrinsic op) {
  switch (op) {
#define TESSEL_X(id, name, arity, pure) \
  case Intrinsic::id:                   \
    return name;
    TESSEL_IR_INTRINSICS(TESSEL_X)
#undef TESSEL_X
  }
  return "?";
}

int IntrinsicArity(Intrinsic op) {
  switch (op) {
#define TESSEL_X(id, name, arity, pure) \
  case Intrinsic::id:                   \
    return arity;
    TESSEL_IR_INTRINSICS(TESSEL_X)
#undef TESSEL_X
  }
  return -1;
}

bool IntrinsicIsPure(Intrinsic op) {
  switch (op) {
#define TESSEL_X(id, name, arity, pure) \
  case Intrinsic::id:                   \
    return pure;
    TESSEL_IR_INTRINSICS(TESSEL_X)
#undef TESSEL_X
  }
  return false;
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "?";
}

Var::Var(std::string name, DataType dtype)
    : Expr(Ref<const ExprNode>(MakeRef<VarNode>(std::move(name), dtype))) {}

Buffer Buffer::Declare(std::string name, std::vector<Expr> shape, DataType dtype, std::string scope,
                       int alignment) {
  auto node = MakeRef<BufferNode>();
  node->data = Var(name, DataType::Handle());
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->elem_offset = IntImm(kInt32, 0);
  node->name = std::move(name);
  node->scope = std::move(scope);
  node->alignment = alignment;
  return Buffer(std::move(node));
}

Buffer Buffer::WithShape(std::vector<Expr> shape, std::vector<Expr> strides) const {
  auto node = MakeRef<BufferNode>();
  node->data = node_->data;
  node->dtype = node_->dtype;
  node->shape = std::move(shape);
  node->strides = std::move(strides);
  node->elem_offset = node_->elem_offset;
  node->name = node_->name;
  node->scope = node_->scope;
  node->alignment = node_->alignment;
  return Buffer(std::move(node));
}

IterVar::IterVar(Var var, Range dom, IterVarType type, std::string thread_tag)
    : node_(MakeRef<IterVarNode>(std::move(var), std::move(dom), type, std::move(thread_tag))) {}

CommReducer::CommReducer(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<Expr> result,
                         std::vector<Expr> identity) {
  TESSEL_CHECK(!lhs.empty() && lhs.size() == rhs.size() && lhs.size() == result.size() &&
               lhs.size() == identity.size())
      << "a reducer needs as many lhs, rhs, results and identities";
  auto node = MakeRef<CommReducerNode>();
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  node->result = std::move(result);
  node->identity = std::move(identity);
  node_ = std::move(node);
}

PrimFunc::PrimFunc(std::string name, std::vector<Var> params, std::vector<Buffer> buffers,
                   Stmt body) {
  auto node = MakeRef<PrimFuncNode>();
  node->name = std::move(name);
  node->params = std::move(params);
  node->buffers = std::move(buffers);
  node->body = std::move(body);
  node_ = std::move(node);
}

PrimFunc PrimFunc::WithBody(Stmt body) const {
  return PrimFunc(node_->name, node_->params, node_->buffers, std::move(body));
}

Buffer PrimFunc::BufferOf(const Var& param) const {
  for (const Buffer& b : node_->buffers) {
    if (b->data.same_as(param)) return b;
  }
  return Buffer();
}

}  // namespace tessel::ir
