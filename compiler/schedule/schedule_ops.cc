#include "compiler/schedule/schedule_ops.h"

#include <absl/strings/str_cat.h>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/schedule/inline.h"
#include "compiler/schedule/tensorize.h"
#include "compiler/support/check.h"

namespace tessel::schedule {
namespace {

using ir::Stmt;
using ir::Var;

// A loop bound to a thread index around the point where a nest is built.
struct ThreadLoop {
  Var var;
  Expr extent;
};

// The loops around the point where a nest is built.
struct Context {
  std::vector<const ir::ForNode*> loops;
  std::unordered_map<std::string, ThreadLoop> threads;
};

// One leaf loop of a stage as it will be emitted.
struct Loop {
  IterVar leaf;
  Expr extent;
  IterVarAttr attr;
  bool emitted;  // false: the leaf reuses an enclosing loop bound to the same thread index
};

class ProducerToBuffer : public ir::IRMutator {
 public:
  explicit ProducerToBuffer(const TensorBuffers& buffers) : buffers_(buffers) {}

 protected:
  Expr Mutate_(const ir::ProducerLoadNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* load = e.as<ir::ProducerLoadNode>();
    const te::TensorNode* t = te::AsTensor(load);
    TESSEL_CHECK(t) << "a read of a producer that is not a tensor";
    auto it = buffers_.find(Tensor(Ref<const te::TensorNode>(const_cast<te::TensorNode*>(t))));
    TESSEL_CHECK(it != buffers_.end()) << "no buffer for tensor " << t->producer_name();
    return ir::BufferLoad(it->second, load->indices);
  }

 private:
  const TensorBuffers& buffers_;
};

class NestBuilder {
 public:
  NestBuilder(const Schedule& schedule, const BoundMap& bounds, const TensorBuffers& args)
      : schedule_(schedule), bounds_(bounds), buffers_(args), bodies_(InlinedBodies(schedule)) {}

  absl::StatusOr<Stmt> Build() {
    DeclareBuffers();
    Stmt body;
    const auto& stages = schedule_->stages;
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      const StageNode& stage = *it->get();
      if (!stage.op.as<te::ComputeOpNode>() || stage.attach_type == AttachType::kInline) continue;
      if (stage.attach_type == AttachType::kRoot) {
        absl::StatusOr<Stmt> produce = Produce(stage, Context());
        if (!produce.ok()) return produce.status();
        body = Realize(stage, ir::SeqStmt({*produce, body}));
      } else {
        absl::StatusOr<Stmt> attached = AttachInto(body, stage);
        if (!attached.ok()) return attached.status();
        body = *attached;
      }
    }
    TESSEL_CHECK(body.defined()) << "a schedule with nothing to compute";
    return ProducerToBuffer(buffers_).MutateStmt(body);
  }

 private:
  void DeclareBuffers() {
    for (const Stage& stage : schedule_->stages) {
      if (!stage->op.as<te::ComputeOpNode>() || stage->attach_type == AttachType::kInline) {
        continue;
      }
      const auto* compute = stage->op.as<te::ComputeOpNode>();
      for (int k = 0; k < compute->num_outputs(); ++k) {
        Tensor t = stage->op.output(k);
        if (buffers_.count(t)) continue;
        std::vector<Expr> extents;
        for (const IterVar& iv : compute->axis) extents.push_back(bounds_.at(iv.get()).extent);
        buffers_.emplace(t, ir::Buffer::Declare(t.name(), extents, t.dtype(),
                                                stage->scope.empty() ? "global" : stage->scope));
        realized_.emplace(t, true);
      }
    }
  }

  // body inside a BufferRealize of each output of the stage that is not an argument.
  Stmt Realize(const StageNode& stage, Stmt body) {
    const auto* compute = stage.op.as<te::ComputeOpNode>();
    for (int k = compute->num_outputs() - 1; k >= 0; --k) {
      Tensor t = stage.op.output(k);
      if (!realized_.count(t)) continue;
      const ir::Buffer& buffer = buffers_.at(t);
      std::vector<ir::Range> region;
      for (const IterVar& iv : compute->axis) region.push_back(bounds_.at(iv.get()));
      body = ir::BufferRealize(buffer, std::move(region), body);
      if (stage.double_buffer) {
        body = ir::AttrStmt(Ref<const Object>(buffer->data.get()), ir::attr::kDoubleBufferScope, 1,
                            body);
      }
    }
    return body;
  }

  // Places a compute_at stage at the start of its target loop inside body.
  absl::StatusOr<Stmt> AttachInto(const Stmt& body, const StageNode& stage) {
    class Attacher : public ir::IRMutator {
     public:
      Attacher(NestBuilder& builder, const StageNode& stage) : builder_(builder), stage_(stage) {}
      absl::Status status;
      bool found = false;

     protected:
      Stmt Mutate_(const ir::ForNode* op, const Stmt& self) override {
        context_.loops.push_back(op);
        const bool thread = op->for_kind == ir::ForKind::kThreadBinding;
        if (thread) context_.threads[op->thread_tag] = ThreadLoop{op->loop_var, op->extent};
        Stmt result;
        if (op->loop_var.get() == stage_.attach_ivar.var().get()) {
          found = true;
          absl::StatusOr<Stmt> produce = builder_.Produce(stage_, context_);
          if (produce.ok()) {
            result = ir::For(op->loop_var, op->min, op->extent, op->for_kind,
                             builder_.Realize(stage_, ir::SeqStmt({*produce, op->body})),
                             op->thread_tag);
          } else {
            status = produce.status();
            result = self;
          }
        } else {
          result = IRMutator::Mutate_(op, self);
        }
        if (thread) context_.threads.erase(op->thread_tag);
        context_.loops.pop_back();
        return result;
      }

     private:
      NestBuilder& builder_;
      const StageNode& stage_;
      Context context_;
    };
    Attacher attacher(*this, stage);
    Stmt result = body.defined() ? attacher.MutateStmt(body) : body;
    if (!attacher.status.ok()) return attacher.status;
    if (!attacher.found) {
      return absl::InvalidArgumentError(absl::StrCat(
          "stage ", stage.op->name, ": cannot compute at loop ", stage.attach_ivar.var().name(),
          " of stage ", stage.attach_stage->op->name, ": that loop is not emitted (is ",
          stage.attach_stage->op->name, " inline or tensorized there?)"));
    }
    return result;
  }

  absl::StatusOr<std::vector<Loop>> Loops(const StageNode& stage, const Context& context,
                                          arith::Analyzer& analyzer, ValueMap& leaf_values) {
    std::vector<Loop> loops;
    for (const IterVar& leaf : stage.leaf_iter_vars) {
      Loop loop{leaf, analyzer.Simplify(bounds_.at(leaf.get()).extent), IterVarAttr(), true};
      if (auto a = stage.attrs.find(leaf.get()); a != stage.attrs.end()) loop.attr = a->second;
      const std::string where =
          absl::StrCat("stage ", stage.op->name, ": axis ", leaf.var().name());
      if ((loop.attr.kind == ir::ForKind::kVectorized ||
           loop.attr.kind == ir::ForKind::kUnrolled) &&
          !ir::AsConstInt(loop.extent)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " is ", ir::ForKindName(loop.attr.kind), " but its extent is not a constant"));
      }
      auto thread = loop.attr.kind == ir::ForKind::kThreadBinding
                        ? context.threads.find(loop.attr.thread_tag)
                        : context.threads.end();
      if (thread != context.threads.end()) {
        if (!analyzer.CanProve(loop.extent <= thread->second.extent)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, " is bound to ", loop.attr.thread_tag, " with ",
                           ir::ToString(loop.extent), " iterations, more than the enclosing ",
                           loop.attr.thread_tag, " loop's ", ir::ToString(thread->second.extent)));
        }
        loop.emitted = false;
        leaf_values.emplace(leaf.get(), thread->second.var);
      } else {
        analyzer.Bind(leaf.var(), ir::Range{ir::MakeZero(loop.extent.dtype()), loop.extent});
        leaf_values.emplace(leaf.get(), leaf.var());
      }
      loops.push_back(std::move(loop));
    }
    return loops;
  }

  // The stage's loop nest in the given context.
  absl::StatusOr<Stmt> Produce(const StageNode& stage, const Context& context) {
    const auto* compute = stage.op.as<te::ComputeOpNode>();
    arith::Analyzer analyzer;
    for (const ir::ForNode* f : context.loops) {
      analyzer.Bind(f->loop_var, ir::Range{f->min, f->extent});
    }
    ValueMap leaf_values;
    absl::StatusOr<std::vector<Loop>> loops = Loops(stage, context, analyzer, leaf_values);
    if (!loops.ok()) return loops.status();
    const ValueMap roots = RootValues(stage, bounds_, leaf_values);
    std::unordered_map<const ir::VarNode*, Expr> vmap;
    std::vector<Expr> indices;
    for (const IterVar& iv : compute->axis) {
      vmap.emplace(iv.var().get(), roots.at(iv.get()));
      indices.push_back(analyzer.Simplify(roots.at(iv.get())));
    }
    for (const IterVar& iv : compute->reduce_axis) vmap.emplace(iv.var().get(), roots.at(iv.get()));

    // Guards: a loop bound to an enclosing thread index may have more threads than iterations;
    // a non-dividing split overhangs its parent; a region may reach past the tensor.
    std::vector<Expr> data_guards, reduce_guards;
    auto guard = [&](std::vector<Expr>& guards, Expr condition) {
      condition = analyzer.Simplify(condition);
      if (analyzer.CanProve(condition)) return;
      for (const Expr& g : guards) {
        if (ir::StructuralEqual(g, condition)) return;  // the region and the shape may agree
      }
      guards.push_back(condition);
    };
    for (const Loop& loop : *loops) {
      if (!loop.emitted) guard(data_guards, leaf_values.at(loop.leaf.get()) < loop.extent);
    }
    for (size_t d = 0; d < compute->axis.size(); ++d) {
      const IterVar& iv = compute->axis[d];
      const ir::Range& r = bounds_.at(iv.get());
      const Expr v = roots.at(iv.get());
      guard(data_guards, v < r.min + r.extent);
      guard(data_guards, v < compute->shape[d]);
      guard(data_guards, v >= 0);
    }
    for (const IterVar& iv : compute->reduce_axis) {
      const ir::Range& r = bounds_.at(iv.get());
      guard(reduce_guards, roots.at(iv.get()) < r.min + r.extent);
    }
    // A split of a split: the inner parent may overhang too, and without its own guard two
    // iterations would compute the same root value.
    for (const IterVarRelation& rel : stage.relations) {
      const auto* split = std::get_if<SplitRelation>(&rel);
      if (!split || split->parent->dom.extent.defined()) continue;  // roots are guarded above
      guard(split->parent->type == ir::IterVarType::kCommReduce ? reduce_guards : data_guards,
            roots.at(split->parent.get()) < bounds_.at(split->parent.get()).extent);
    }

    const std::vector<Expr>& body = bodies_.at(&stage);
    std::vector<Tensor> outputs;
    for (int k = 0; k < compute->num_outputs(); ++k) outputs.push_back(stage.op.output(k));

    size_t tensorize_at = loops->size();
    for (size_t j = 0; j < loops->size(); ++j) {
      if ((*loops)[j].attr.tensor_intrin.defined()) tensorize_at = std::min(tensorize_at, j);
    }
    if (tensorize_at < loops->size()) {
      if (!data_guards.empty() || !reduce_guards.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("stage ", compute->name, ": cannot tensorize axis ",
                         (*loops)[tensorize_at].leaf.var().name(),
                         ": the tiles need guards (a split factor does not divide its axis)"));
      }
      TensorizeRequest request{stage,
                               *compute,
                               (*loops)[tensorize_at].leaf,
                               (*loops)[tensorize_at].attr.tensor_intrin,
                               bounds_,
                               roots,
                               buffers_,
                               body};
      absl::StatusOr<TensorizedNest> nest = Tensorize(request, analyzer);
      if (!nest.ok()) return nest.status();
      // The loops outside the tensorized one remain; for a reduction whose reduction loops are
      // all inside, the intrinsic's body computes the whole result.
      if (nest->init.defined()) {
        return WrapReduction(*loops, tensorize_at, nest->init, nest->update);
      }
      return Wrap(*loops, 0, tensorize_at, nest->body);
    }

    if (!compute->is_reduction()) {
      std::vector<Stmt> stores;
      for (int k = 0; k < compute->num_outputs(); ++k) {
        stores.push_back(ir::BufferStore(
            buffers_.at(outputs[k]), analyzer.Simplify(ir::Substitute(body[k], vmap)), indices));
      }
      return Wrap(*loops, 0, loops->size(), Guard(data_guards, ir::SeqStmt(stores)));
    }

    // A reduction: identities in the loops outside the first reduction loop, updates in all.
    const auto* reduce = body[0].as<ir::ReduceNode>();
    const ir::CommReducerNode* combiner = reduce->combiner.get();
    std::vector<Stmt> init;
    std::unordered_map<const ir::VarNode*, Expr> operands;
    for (int k = 0; k < compute->num_outputs(); ++k) {
      const ir::Buffer& buffer = buffers_.at(outputs[k]);
      init.push_back(ir::BufferStore(buffer, combiner->identity[k], indices));
      operands.emplace(combiner->lhs[k].get(), ir::BufferLoad(buffer, indices));
      operands.emplace(combiner->rhs[k].get(),
                       analyzer.Simplify(ir::Substitute(reduce->source[k], vmap)));
    }
    std::vector<Stmt> update;
    if (compute->num_outputs() == 1) {
      update.push_back(ir::BufferStore(buffers_.at(outputs[0]),
                                       ir::Substitute(combiner->result[0], operands), indices));
    } else {
      // Every result reads every output's old value: compute all before storing any.
      std::vector<Var> results;
      for (int k = 0; k < compute->num_outputs(); ++k) {
        results.emplace_back(absl::StrCat(outputs[k].name(), ".next"), outputs[k].dtype());
        update.push_back(ir::BufferStore(buffers_.at(outputs[k]), results[k], indices));
      }
      Stmt stores = ir::SeqStmt(update);
      for (int k = compute->num_outputs() - 1; k >= 0; --k) {
        stores = ir::LetStmt(results[k], ir::Substitute(combiner->result[k], operands), stores);
      }
      update = {stores};
    }
    std::vector<Expr> update_guards = data_guards;
    update_guards.insert(update_guards.end(), reduce_guards.begin(), reduce_guards.end());
    Expr where = analyzer.Simplify(ir::Substitute(reduce->condition, vmap));
    if (!ir::IsConstInt(where, 1)) update_guards.push_back(where);
    return WrapReduction(*loops, loops->size(), Guard(data_guards, ir::SeqStmt(init)),
                         Guard(update_guards, ir::SeqStmt(update)));
  }

  // init in the data loops outside the first reduction loop (and, with fresh variables, in the
  // data loops after it, up to `end`); update in all loops up to `end`.
  absl::StatusOr<Stmt> WrapReduction(const std::vector<Loop>& loops, size_t end, Stmt init,
                                     Stmt update) {
    size_t first_reduce = end;
    for (size_t j = 0; j < end; ++j) {
      if (loops[j].leaf->type == ir::IterVarType::kCommReduce) {
        first_reduce = j;
        break;
      }
    }
    // The init copy of the inner data loops needs its own variables.
    std::unordered_map<const ir::VarNode*, Expr> fresh;
    std::vector<Loop> init_loops;
    for (size_t j = first_reduce; j < end; ++j) {
      if (loops[j].leaf->type == ir::IterVarType::kCommReduce || !loops[j].emitted) continue;
      Loop copy = loops[j];
      Var v(loops[j].leaf.var().name() + ".init", loops[j].leaf.var().dtype());
      fresh.emplace(loops[j].leaf.var().get(), v);
      copy.leaf = IterVar(v, ir::Range{}, ir::IterVarType::kOpaque);
      init_loops.push_back(copy);
    }
    Stmt init_nest = Wrap(init_loops, 0, init_loops.size(), ir::Substitute(init, fresh));
    Stmt update_nest = Wrap(loops, first_reduce, end, update);
    return Wrap(loops, 0, first_reduce, ir::SeqStmt({init_nest, update_nest}));
  }

  static Stmt Guard(const std::vector<Expr>& guards, Stmt body) {
    if (guards.empty()) return body;
    Expr condition = guards[0];
    for (size_t k = 1; k < guards.size(); ++k) condition = condition && guards[k];
    return ir::IfThenElse(ir::likely(condition), body);
  }

  // body inside loops [begin, end), outermost first.
  static Stmt Wrap(const std::vector<Loop>& loops, size_t begin, size_t end, Stmt body) {
    for (size_t j = end; j-- > begin;) {
      const Loop& loop = loops[j];
      if (!loop.emitted) continue;
      const bool thread = loop.attr.kind == ir::ForKind::kThreadBinding;
      body = ir::For(loop.leaf.var(), ir::MakeZero(loop.extent.dtype()), loop.extent,
                     loop.attr.kind, body, thread ? loop.attr.thread_tag : "");
      for (auto p = loop.attr.pragmas.rbegin(); p != loop.attr.pragmas.rend(); ++p) {
        body = ir::AttrStmt(Ref<const Object>(loop.leaf.var().get()),
                            std::string(ir::attr::kPragmaPrefix) + p->first, p->second, body);
      }
    }
    return body;
  }

  const Schedule& schedule_;
  const BoundMap& bounds_;
  TensorBuffers buffers_;
  std::unordered_map<Tensor, bool, te::TensorHash, te::TensorEqual> realized_;
  StageBodies bodies_;
};

}  // namespace

absl::StatusOr<ir::Stmt> ScheduleOps(const Schedule& schedule, const BoundMap& bounds,
                                     const TensorBuffers& args) {
  return NestBuilder(schedule, bounds, args).Build();
}

}  // namespace tessel::schedule
