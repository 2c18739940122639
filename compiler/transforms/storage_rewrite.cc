#include "compiler/transforms/storage_rewrite.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/visitor.h"
#include "compiler/transforms/uses_var.h"

namespace tessel::transforms {
namespace {

// An Allocate hoisted to the top of its region.
struct Candidate {
  ir::Buffer buffer;
  size_t home_depth;  // serial loops of the region around the original Allocate
  int64_t alloc_pos;
  int64_t first = -1, last = -1;
  bool mergeable = true;
};

// A serial loop being walked: accesses inside it that must count as the whole loop wait here.
struct LoopFrame {
  int64_t start;
  std::vector<size_t> extend;
};

// A loop or let being walked, with the Allocates that move to the top of its body (their size
// uses its variable).
struct Binder {
  const ir::VarNode* var;
  std::vector<ir::Buffer> attached;
};

// Replaces accesses of merged buffers by their group's buffer.
class Alias : public ir::IRMutator {
 public:
  explicit Alias(const std::unordered_map<const ir::VarNode*, ir::Buffer>& to) : to_(to) {}

 protected:
  ir::Expr Mutate_(const ir::BufferLoadNode* op, const ir::Expr& self) override {
    ir::Expr visited = ir::IRMutator::Mutate_(op, self);
    const auto* load = visited.as<ir::BufferLoadNode>();
    auto it = to_.find(load->buffer->data.get());
    return it == to_.end() ? visited : ir::BufferLoad(it->second, load->indices);
  }
  ir::Stmt Mutate_(const ir::BufferStoreNode* op, const ir::Stmt& self) override {
    ir::Stmt visited = ir::IRMutator::Mutate_(op, self);
    const auto* store = visited.as<ir::BufferStoreNode>();
    auto it = to_.find(store->buffer->data.get());
    return it == to_.end() ? visited : ir::BufferStore(it->second, store->value, store->indices);
  }

 private:
  const std::unordered_map<const ir::VarNode*, ir::Buffer>& to_;
};

class Region {
 public:
  explicit Region(const VarSet& params) : params_(params) {}

  ir::Stmt Rewrite(const ir::Stmt& body) {
    ir::Stmt rest = Walk(body);
    return Merge(rest);
  }

 private:
  ir::Stmt Walk(const ir::Stmt& s) {
    const int64_t pos = ++pos_;
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt: {
        std::vector<ir::Stmt> seq;
        bool changed = false;
        for (const ir::Stmt& child : s.as<ir::SeqStmtNode>()->seq) {
          seq.push_back(Walk(child));
          changed |= !seq.back().same_as(child);
        }
        return changed ? ir::SeqStmt(std::move(seq)) : s;
      }
      case ir::NodeKind::kAllocate: {
        const auto* op = s.as<ir::AllocateNode>();
        if (params_.count(op->buffer->data.get())) {
          return Keep(s, op->body, Walk(op->body),
                      [&](ir::Stmt b) { return ir::Allocate(op->buffer, b); });
        }
        if (UsesVar(op->buffer->shape[0], bound_)) {
          // Up to the innermost loop or let whose variable the size uses.
          for (size_t b = binders_.size(); b-- > 0;) {
            if (UsesVar(op->buffer->shape[0], {binders_[b].var})) {
              binders_[b].attached.push_back(op->buffer);
              break;
            }
          }
          return Walk(op->body);
        }
        index_[op->buffer->data.get()] = candidates_.size();
        candidates_.push_back({op->buffer, loops_.size(), pos});
        return Walk(op->body);
      }
      case ir::NodeKind::kFor: {
        const auto* op = s.as<ir::ForNode>();
        Scan(op->min, pos);
        Scan(op->extent, pos);
        if (op->for_kind != ir::ForKind::kSerial) return Nested(s, pos);
        bound_.insert(op->loop_var.get());
        loops_.push_back({pos, {}});
        ir::Stmt body = Bound(op->loop_var.get(), op->body);
        for (size_t c : loops_.back().extend) Touch(c, pos_);
        loops_.pop_back();
        return Keep(s, op->body, body, [&](ir::Stmt b) {
          return ir::For(op->loop_var, op->min, op->extent, op->for_kind, b, op->thread_tag);
        });
      }
      case ir::NodeKind::kLetStmt: {
        const auto* op = s.as<ir::LetStmtNode>();
        Scan(op->value, pos);
        bound_.insert(op->var.get());
        return Keep(s, op->body, Bound(op->var.get(), op->body),
                    [&](ir::Stmt b) { return ir::LetStmt(op->var, op->value, b); });
      }
      case ir::NodeKind::kIfThenElse: {
        const auto* op = s.as<ir::IfThenElseNode>();
        Scan(op->condition, pos);
        ir::Stmt then_case = Walk(op->then_case);
        ir::Stmt else_case = op->else_case.defined() ? Walk(op->else_case) : ir::Stmt();
        if (then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return s;
        return ir::IfThenElse(op->condition, then_case, else_case);
      }
      case ir::NodeKind::kAssertStmt: {
        const auto* op = s.as<ir::AssertStmtNode>();
        Scan(op->condition, pos);
        return Keep(s, op->body, Walk(op->body),
                    [&](ir::Stmt b) { return ir::AssertStmt(op->condition, op->message, b); });
      }
      case ir::NodeKind::kAttrStmt:
      case ir::NodeKind::kBufferRealize:
        return Nested(s, pos);
      default:  // BufferStore, Evaluate
        ScanStmt(s, pos);
        return s;
    }
  }

  // The body of a loop or let binding var, with the Allocates whose size uses var at its top.
  ir::Stmt Bound(const ir::VarNode* var, const ir::Stmt& body) {
    binders_.push_back({var, {}});
    ir::Stmt result = Walk(body);
    std::vector<ir::Buffer> attached = std::move(binders_.back().attached);
    binders_.pop_back();
    for (size_t k = attached.size(); k-- > 0;) result = ir::Allocate(attached[k], result);
    return result;
  }

  // A nested region: one position for this region, rewritten on its own.
  ir::Stmt Nested(const ir::Stmt& s, int64_t pos) {
    ScanStmt(s, pos);
    if (const auto* op = s.as<ir::ForNode>()) {
      return Keep(s, op->body, Region(params_).Rewrite(op->body), [&](ir::Stmt b) {
        return ir::For(op->loop_var, op->min, op->extent, op->for_kind, b, op->thread_tag);
      });
    }
    if (const auto* op = s.as<ir::AttrStmtNode>()) {
      return Keep(s, op->body, Region(params_).Rewrite(op->body),
                  [&](ir::Stmt b) { return ir::AttrStmt(op->node, op->key, op->value, b); });
    }
    const auto* op = s.as<ir::BufferRealizeNode>();
    return Keep(s, op->body, Region(params_).Rewrite(op->body),
                [&](ir::Stmt b) { return ir::BufferRealize(op->buffer, op->bounds, b); });
  }

  // make(body), or self if the body did not change.
  template <typename Make>
  static ir::Stmt Keep(const ir::Stmt& self, const ir::Stmt& old_body, const ir::Stmt& body,
                       Make make) {
    return body.same_as(old_body) ? self : make(body);
  }

  void Scan(const ir::Expr& e, int64_t pos) { ScanStmt(ir::Evaluate(e), pos); }

  // Records the accesses of candidates in s as happening at pos.
  void ScanStmt(const ir::Stmt& s, int64_t pos) {
    if (candidates_.empty()) return;
    auto access = [&](const ir::VarNode* data, size_t indices) {
      auto it = index_.find(data);
      if (it == index_.end()) return;
      if (indices != 1) candidates_[it->second].mergeable = false;
      Access(it->second, pos);
    };
    ir::PreOrderVisit(
        s,
        [&](const ir::Expr& e) {
          if (const auto* load = e.as<ir::BufferLoadNode>()) {
            access(load->buffer->data.get(), load->indices.size());
          } else if (const auto* v = e.as<ir::VarNode>()) {
            auto it = index_.find(v);
            if (it != index_.end()) candidates_[it->second].mergeable = false;
          }
        },
        [&](const ir::Stmt& st) {
          if (const auto* store = st.as<ir::BufferStoreNode>()) {
            access(store->buffer->data.get(), store->indices.size());
          } else if (const auto* attr = st.as<ir::AttrStmtNode>()) {
            auto it = index_.find(dynamic_cast<const ir::VarNode*>(attr->node.get()));
            if (it != index_.end()) candidates_[it->second].mergeable = false;
          }
        });
  }

  void Access(size_t c, int64_t pos) {
    const size_t home = candidates_[c].home_depth;
    if (loops_.size() > home) {
      // Inside a loop that the original Allocate encloses: the whole loop.
      Touch(c, loops_[home].start);
      loops_[home].extend.push_back(c);
    } else {
      Touch(c, pos);
    }
  }

  void Touch(size_t c, int64_t pos) {
    Candidate& cand = candidates_[c];
    cand.first = cand.first < 0 ? pos : std::min(cand.first, pos);
    cand.last = std::max(cand.last, pos);
  }

  // Groups the candidates and wraps body in one Allocate per group.
  ir::Stmt Merge(const ir::Stmt& body) {
    if (candidates_.empty()) return body;
    struct Group {
      std::vector<size_t> members;
      ir::Expr size;
      int64_t last;
    };
    std::vector<size_t> order(candidates_.size());
    for (size_t c = 0; c < order.size(); ++c) {
      Candidate& cand = candidates_[c];
      if (cand.first < 0) cand.first = cand.last = cand.alloc_pos;  // never accessed
      order[c] = c;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return candidates_[a].first < candidates_[b].first;
    });
    std::vector<Group> groups;
    for (size_t c : order) {
      const Candidate& cand = candidates_[c];
      Group* home = nullptr;
      for (Group& g : groups) {
        const Candidate& lead = candidates_[g.members[0]];
        if (cand.mergeable && lead.mergeable && g.last < cand.first &&
            lead.buffer->scope == cand.buffer->scope && lead.buffer->dtype == cand.buffer->dtype) {
          home = &g;
          break;
        }
      }
      if (home) {
        home->members.push_back(c);
        home->size = ir::max(home->size, cand.buffer->shape[0]);
        home->last = std::max(home->last, cand.last);
      } else {
        groups.push_back({{c}, cand.buffer->shape[0], cand.last});
      }
    }
    // Emit groups in order of their first member's Allocate.
    std::sort(groups.begin(), groups.end(),
              [](const Group& a, const Group& b) { return a.members[0] < b.members[0]; });
    std::unordered_map<const ir::VarNode*, ir::Buffer> alias;
    std::vector<ir::Buffer> allocs;
    for (const Group& g : groups) {
      const ir::Buffer& lead = candidates_[g.members[0]].buffer;
      ir::Buffer merged = g.members.size() == 1 ? lead : lead.WithShape({g.size}, {});
      allocs.push_back(merged);
      for (size_t k = 1; k < g.members.size(); ++k) {
        alias[candidates_[g.members[k]].buffer->data.get()] = merged;
      }
      if (g.members.size() > 1) alias[lead->data.get()] = merged;
    }
    ir::Stmt result = alias.empty() ? body : Alias(alias).MutateStmt(body);
    for (size_t k = allocs.size(); k-- > 0;) result = ir::Allocate(allocs[k], result);
    return result;
  }

  const VarSet& params_;
  VarSet bound_;
  std::vector<Candidate> candidates_;
  std::unordered_map<const ir::VarNode*, size_t> index_;
  std::vector<LoopFrame> loops_;
  std::vector<Binder> binders_;
  int64_t pos_ = 0;
};

}  // namespace

ir::PrimFunc StorageRewrite(ir::PrimFunc func) {
  if (!func->body.defined()) return func;
  VarSet params;
  for (const ir::Var& p : func->params) params.insert(p.get());
  return func.WithBody(Region(params).Rewrite(func->body));
}

}  // namespace tessel::transforms
