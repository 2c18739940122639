#include "costmodels/features/loop_nest.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"

namespace tessel::costmodels {
namespace {

// The layout of a buffer a BufferRealize makes: row-major over the region's extents, indices
// counted from the region's mins.
struct Realized {
  std::vector<double> strides;
  std::vector<IndexForm> mins;
};

class NestReader : public ir::IRVisitor {
 public:
  explicit NestReader(LoopNest& nest) : nest_(nest) {}

  void Finish() {
    // Per-iteration counts so far hold only the loop's own statements; add the inner loops'.
    for (int i = static_cast<int>(nest_.loops.size()) - 1; i >= 0; --i) {
      const Loop& loop = nest_.loops[i];
      OpCounts& to = loop.parent < 0 ? nest_.ops : nest_.loops[loop.parent].ops;
      for (int k = 0; k < kNumOpKinds; ++k) to[k] += static_cast<double>(loop.extent) * loop.ops[k];
    }
  }

 protected:
  using IRVisitor::Visit_;

  void Visit_(const ir::ForNode* op) override {
    const int id = static_cast<int>(nest_.loops.size());
    Loop loop;
    loop.name = op->loop_var.name();
    loop.extent = Extent(op->extent);
    loop.kind = op->for_kind;
    loop.thread_tag = op->thread_tag;
    loop.parent = current_;
    loop.depth = current_ < 0 ? 0 : nest_.loops[current_].depth + 1;
    if (current_ >= 0) nest_.loops[current_].children.push_back(id);
    nest_.loops.push_back(std::move(loop));
    nest_.extents.push_back(nest_.loops.back().extent);
    nest_.forms.AddLoop(op->loop_var, id);
    const int outer = current_;
    current_ = id;
    VisitStmt(op->body);
    current_ = outer;
  }

  void Visit_(const ir::BufferRealizeNode* op) override {
    const int id = BufferId(op->buffer);
    nest_.alloc_loops[id] = current_;
    Realized realized;
    std::vector<double> extents;
    for (const ir::Range& r : op->bounds) {
      extents.push_back(static_cast<double>(Extent(r.extent)));
      realized.mins.push_back(nest_.forms.Form(r.min));
    }
    realized.strides = RowMajor(extents);
    realized_[op->buffer->data.get()] = std::move(realized);
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::AllocateNode* op) override {
    nest_.alloc_loops[BufferId(op->buffer)] = current_;
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::LetStmtNode* op) override {
    if (!op->var.dtype().is_float()) nest_.forms.Bind(op->var, op->value);
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::LetNode* op) override {
    if (!op->var.dtype().is_float()) nest_.forms.Bind(op->var, op->value);
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::BufferStoreNode* op) override {
    Record(op->buffer, op->indices, true, op->value.dtype().lanes());
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::BufferLoadNode* op) override {
    Record(op->buffer, op->indices, false, op->dtype.lanes());
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::AddNode* op) override { Count(op->dtype, kFloatAdd, op->a, op->b); }
  void Visit_(const ir::SubNode* op) override { Count(op->dtype, kFloatAdd, op->a, op->b); }
  void Visit_(const ir::MulNode* op) override { Count(op->dtype, kFloatMul, op->a, op->b); }
  void Visit_(const ir::DivNode* op) override { Count(op->dtype, kFloatDiv, op->a, op->b); }
  void Visit_(const ir::MinNode* op) override { Count(op->dtype, kFloatOther, op->a, op->b); }
  void Visit_(const ir::MaxNode* op) override { Count(op->dtype, kFloatOther, op->a, op->b); }
  void Visit_(const ir::EQNode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }
  void Visit_(const ir::NENode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }
  void Visit_(const ir::LTNode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }
  void Visit_(const ir::LENode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }
  void Visit_(const ir::GTNode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }
  void Visit_(const ir::GENode* op) override { Count(op->a.dtype(), kFloatOther, op->a, op->b); }

  void Visit_(const ir::SelectNode* op) override {
    Add(op->dtype, kFloatOther);
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::CallNode* op) override {
    Add(op->dtype, kFloatOther);
    IRVisitor::Visit_(op);
  }

 private:
  int64_t Extent(const ir::Expr& e) {
    if (const auto* imm = e.as<ir::IntImmNode>()) return std::max<int64_t>(1, imm->value);
    // The largest value over the enclosing loops (atoms take values from 0 up).
    IndexForm f = nest_.forms.Form(e);
    LoopSet all{&nest_.extents, std::vector<char>(nest_.loops.size(), 1)};
    double high = f.constant;
    for (const IndexTerm& t : f.terms) {
      if (t.coef > 0) high += t.coef * (nest_.forms.Span(IndexForm{0, {{1.0, t.atom}}}, all) - 1);
    }
    return std::max<int64_t>(1, static_cast<int64_t>(std::min(high, 1e15)));
  }

  int BufferId(const ir::Buffer& buffer) {
    auto [it, inserted] =
        buffer_ids_.emplace(buffer->data.get(), static_cast<int>(nest_.buffers.size()));
    if (inserted) {
      nest_.buffers.push_back(buffer.name());
      nest_.alloc_loops.push_back(-1);
    }
    return it->second;
  }

  static std::vector<double> RowMajor(const std::vector<double>& extents) {
    std::vector<double> strides(extents.size(), 1.0);
    for (size_t k = extents.size(); k-- > 1;) strides[k - 1] = strides[k] * extents[k];
    return strides;
  }

  // The flat index of an access through `buffer` (see loop_nest.h).
  IndexForm FlatIndex(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices) {
    auto realized = realized_.find(buffer->data.get());
    const bool region = realized != realized_.end() &&
                        realized->second.mins.size() == indices.size() && indices.size() > 1;
    if (indices.size() == 1 && !region) {
      // Flat already (storage flattening keeps parameters' shapes but flattens their accesses),
      // or one-dimensional.
      IndexForm index = nest_.forms.Form(indices[0]);
      if (realized != realized_.end() && realized->second.mins.size() == 1) {
        index = Combine(index, realized->second.mins[0], -1);
      }
      return index;
    }
    std::vector<double> strides;
    if (!buffer->strides.empty()) {
      for (const ir::Expr& s : buffer->strides) strides.push_back(static_cast<double>(Extent(s)));
    } else if (region) {
      strides = realized->second.strides;
    } else {
      std::vector<double> extents;
      for (const ir::Expr& e : buffer->shape) extents.push_back(static_cast<double>(Extent(e)));
      strides = RowMajor(extents);
    }
    IndexForm index;
    for (size_t k = 0; k < indices.size(); ++k) {
      IndexForm part = nest_.forms.Form(indices[k]);
      if (region) part = Combine(part, realized->second.mins[k], -1);
      index = Combine(index, part, k < strides.size() ? strides[k] : 1.0);
    }
    return index;
  }

  void Record(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices, bool write,
              int lanes) {
    const int id = BufferId(buffer);
    // A Ramp index brings its lanes into the form as an atom.
    nest_.accesses.push_back(Access{id, current_, FlatIndex(buffer, indices), write, lanes});
  }

  void Add(ir::DataType type, OpKind kind) {
    if (!type.is_float()) return;
    OpCounts& ops = current_ < 0 ? nest_.ops : nest_.loops[current_].ops;
    ops[kind] += type.lanes();
  }

  // A two-operand node, counted when `type` (the node's or, for a comparison, its operands') is
  // float.
  void Count(ir::DataType type, OpKind kind, const ir::Expr& a, const ir::Expr& b) {
    Add(type, kind);
    VisitExpr(a);
    VisitExpr(b);
  }

  LoopNest& nest_;
  int current_ = -1;
  std::unordered_map<const ir::VarNode*, int> buffer_ids_;
  std::unordered_map<const ir::VarNode*, Realized> realized_;
};

}  // namespace

LoopNest AnalyzeLoopNest(const ir::PrimFunc& func) {
  LoopNest nest;
  NestReader reader(nest);
  if (func->body.defined()) reader.VisitStmt(func->body);
  reader.Finish();
  return nest;
}

}  // namespace tessel::costmodels
