#include "compiler/transforms/storage_flatten.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/support/check.h"

namespace tessel::transforms {
namespace {

struct DimAlign {
  int dim;
  int64_t factor;
  int64_t offset;
};

// How the accesses of one multi-dimensional buffer map onto its flat buffer.
struct Layout {
  const ir::BufferNode* source = nullptr;  // the realized or parameter buffer
  ir::Buffer flat;
  std::vector<ir::Expr> mins;  // empty: all zero
  std::vector<ir::Expr> strides;
  ir::Expr elem_offset;
};

// The flat buffer of b: one dimension of `size` elements, sharing b's data variable.
ir::Buffer FlatBuffer(const ir::Buffer& b, ir::Expr size) {
  auto node = MakeRef<ir::BufferNode>();
  node->data = b->data;
  node->dtype = b->dtype;
  node->shape = {std::move(size)};
  node->elem_offset = ir::IntImm(ir::kInt32, 0);
  node->name = b->name;
  node->scope = b->scope;
  node->alignment = b->alignment;
  return ir::Buffer(std::move(node));
}

ir::Expr ElemOffset(const ir::Buffer& b) {
  return b->elem_offset.defined() ? b->elem_offset : ir::IntImm(ir::kInt32, 0);
}

// The layout of b stored over the given extents (the realized region, or b's shape).
Layout MakeLayout(const ir::Buffer& b, const std::vector<ir::Expr>& extents,
                  std::vector<ir::Expr> mins, const std::vector<DimAlign>& aligns) {
  const int ndim = static_cast<int>(extents.size());
  Layout layout;
  layout.mins = std::move(mins);
  layout.elem_offset = ElemOffset(b);
  ir::Expr size;
  if (!b->strides.empty()) {
    TESSEL_CHECK(static_cast<int>(b->strides.size()) == ndim)
        << "buffer " << b.name() << " has " << b->strides.size() << " strides for " << ndim
        << " dimensions";
    layout.strides = b->strides;
    size = layout.elem_offset + 1;
    for (int k = 0; k < ndim; ++k) size = size + (extents[k] - 1) * b->strides[k];
  } else {
    layout.strides.resize(ndim);
    ir::Expr stride = ir::IntImm(extents.empty() ? ir::kInt32 : extents.back().dtype(), 1);
    for (int k = ndim - 1; k >= 0; --k) {
      if (k < ndim - 1) stride = stride * extents[k + 1];
      for (const DimAlign& a : aligns) {
        if (a.dim != k) continue;
        ir::Expr factor = ir::IntImm(stride.dtype(), a.factor);
        ir::Expr offset = ir::IntImm(stride.dtype(), a.offset);
        stride = stride + ir::floormod(offset - stride, factor);
      }
      layout.strides[k] = stride;
    }
    size = layout.elem_offset + (ndim == 0 ? ir::Expr(1) : layout.strides[0] * extents[0]);
  }
  layout.flat = FlatBuffer(b, size);
  layout.source = b.get();
  return layout;
}

class Flattener : public ir::IRMutator {
 public:
  // Registers a parameter buffer; returns its flat form.
  ir::Buffer AddParam(const ir::Buffer& b) {
    Layout layout = MakeLayout(b, b->shape, {}, {});
    ir::Buffer flat = layout.flat;
    layouts_.emplace(b->data.get(), std::move(layout));
    params_.insert(b->data.get());
    return flat;
  }

 protected:
  ir::Stmt Mutate_(const ir::AttrStmtNode* op, const ir::Stmt& self) override {
    if (op->key != kBufferDimAlign) return ir::IRMutator::Mutate_(op, self);
    const auto* data = dynamic_cast<const ir::VarNode*>(op->node.get());
    const auto* call = op->value.as<ir::CallNode>();
    TESSEL_CHECK(data && call && call->op == ir::Intrinsic::kCallExtern && call->args.size() == 4)
        << kBufferDimAlign << " attribute with an unexpected node or value";
    const int64_t* dim = ir::AsConstInt(call->args[1]);
    const int64_t* factor = ir::AsConstInt(call->args[2]);
    const int64_t* offset = ir::AsConstInt(call->args[3]);
    TESSEL_CHECK(dim && factor && offset && *factor > 0)
        << kBufferDimAlign << " of " << data->name << " needs constant dim, factor > 0, offset";
    aligns_[data].push_back({static_cast<int>(*dim), *factor, *offset});
    return MutateStmt(op->body);
  }

  ir::Stmt Mutate_(const ir::BufferRealizeNode* op, const ir::Stmt&) override {
    const ir::VarNode* data = op->buffer->data.get();
    if (params_.count(data)) return MutateStmt(op->body);
    std::vector<ir::Expr> mins, extents;
    for (const ir::Range& r : op->bounds) {
      mins.push_back(MutateExpr(r.min));
      extents.push_back(MutateExpr(r.extent));
    }
    const std::vector<DimAlign>& aligns = aligns_[data];
    for (const DimAlign& a : aligns) {
      TESSEL_CHECK(a.dim >= 0 && a.dim < op->buffer.ndim())
          << kBufferDimAlign << " of dimension " << a.dim << " of " << op->buffer.name();
    }
    Layout layout = MakeLayout(op->buffer, extents, std::move(mins), aligns);
    ir::Buffer flat = layout.flat;
    layouts_[data] = std::move(layout);
    return ir::Allocate(flat, MutateStmt(op->body));
  }

  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    bool changed = false;
    std::vector<ir::Expr> indices = MutateAll(op->indices, &changed);
    auto it = layouts_.find(op->buffer->data.get());
    if (it == layouts_.end()) return changed ? ir::BufferLoad(op->buffer, indices) : self;
    return ir::BufferLoad(it->second.flat, {FlatIndex(it->second, op->buffer, indices)});
  }

  ir::Stmt Mutate_(const ir::BufferStoreNode* op, const ir::Stmt& self) override {
    ir::Expr value = MutateExpr(op->value);
    bool changed = !value.same_as(op->value);
    std::vector<ir::Expr> indices = MutateAll(op->indices, &changed);
    auto it = layouts_.find(op->buffer->data.get());
    if (it == layouts_.end()) return changed ? ir::BufferStore(op->buffer, value, indices) : self;
    return ir::BufferStore(it->second.flat, value, {FlatIndex(it->second, op->buffer, indices)});
  }

 private:
  static ir::Expr FlatIndex(const Layout& layout, const ir::Buffer& b,
                            const std::vector<ir::Expr>& indices) {
    if (b.get() != layout.source && !b->strides.empty()) {
      // A strided view of the storage (a tensorized tile): its own offset and strides, counted
      // from the start of the storage.
      TESSEL_CHECK(indices.size() == b->strides.size())
          << "access to view " << b.name() << " with " << indices.size() << " indices";
      ir::Expr flat = ElemOffset(b);
      for (size_t k = 0; k < indices.size(); ++k) flat = flat + indices[k] * b->strides[k];
      return flat;
    }
    TESSEL_CHECK(indices.size() == layout.strides.size())
        << "access to " << b.name() << " with " << indices.size() << " indices; its storage has "
        << layout.strides.size() << " dimensions";
    ir::Expr flat = layout.elem_offset;
    for (size_t k = 0; k < indices.size(); ++k) {
      ir::Expr index = layout.mins.empty() ? indices[k] : indices[k] - layout.mins[k];
      flat = flat + index * layout.strides[k];
    }
    return flat;
  }

  std::unordered_map<const ir::VarNode*, Layout> layouts_;
  std::unordered_map<const ir::VarNode*, std::vector<DimAlign>> aligns_;
  std::unordered_set<const ir::VarNode*> params_;
};

}  // namespace

ir::Stmt BufferDimAlign(const ir::Var& data, int dim, int factor, int offset, ir::Stmt body) {
  ir::Expr value = ir::Call(ir::kInt32, ir::Intrinsic::kCallExtern,
                            {ir::StringImm(kBufferDimAlign), ir::IntImm(ir::kInt32, dim),
                             ir::IntImm(ir::kInt32, factor), ir::IntImm(ir::kInt32, offset)});
  return ir::AttrStmt(Ref<const Object>(data.get()), kBufferDimAlign, value, std::move(body));
}

ir::PrimFunc StorageFlatten(ir::PrimFunc func) {
  Flattener flattener;
  for (const ir::Buffer& b : func->buffers) flattener.AddParam(b);
  ir::Stmt body = func->body.defined() ? flattener.MutateStmt(func->body) : func->body;
  return func.WithBody(body);
}

}  // namespace tessel::transforms
