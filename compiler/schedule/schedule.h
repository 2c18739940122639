#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <map>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "compiler/te/operation.h"
#include "compiler/te/tensor_intrin.h"

// Schedules: how the operations of a tensor-expression graph become loops. A Schedule holds one
// Stage per operation; primitives transform a stage's loops (split, fuse, reorder, annotate,
// bind), where a stage is computed (compute_at, compute_inline, compute_root), where its results
// live (set_scope, cache_read, cache_write, storage_align, double_buffer), and which nest a
// hardware intrinsic replaces (tensorize). Lowering (compiler/schedule/schedule_ops.h) turns the
// schedule into a loop nest.
//
// Every primitive checks its arguments and returns an error naming the stage and the axis on
// misuse; none aborts. Preconditions, for every primitive taking axes: each axis is a current
// loop (a leaf) of this stage, not an axis of another stage and not one already split or fused.
namespace tessel::schedule {

using ir::Expr;
using ir::IterVar;
using te::Operation;
using te::Tensor;

// parent = outer * factor + inner (+ parent's min); exactly one of factor and nparts is set.
struct SplitRelation {
  IterVar parent, outer, inner;
  Expr factor, nparts;
};

// fused = outer * extent(inner) + inner.
struct FuseRelation {
  IterVar outer, inner, fused;
};

using IterVarRelation = std::variant<SplitRelation, FuseRelation>;

// What a schedule says about one loop.
struct IterVarAttr {
  ir::ForKind kind = ir::ForKind::kSerial;
  std::string thread_tag;  // with kThreadBinding: "blockIdx.x", "threadIdx.y", "vthread", ...
  std::vector<std::pair<std::string, Expr>> pragmas;
  te::TensorIntrin tensor_intrin;  // defined: this loop and those inside it are tensorized
};

enum class AttachType {
  kRoot,    // its own loop nest at the top level
  kInline,  // substituted into its consumers
  kScope,   // computed inside another stage's loop (compute_at)
};

class ScheduleNode;

struct StageNode : Object {
  Operation op;                         // the operation as scheduled (cache_* may rewrite it)
  Operation origin_op;                  // the operation the user declared
  std::vector<IterVar> all_iter_vars;   // roots (axis, reduce_axis) and every derived loop
  std::vector<IterVar> leaf_iter_vars;  // the loops, outermost first
  std::vector<IterVarRelation> relations;
  std::unordered_map<const ir::IterVarNode*, IterVarAttr> attrs;
  AttachType attach_type = AttachType::kRoot;
  Ref<StageNode> attach_stage;  // with kScope: the consumer stage
  IterVar attach_ivar;          // with kScope: the consumer's loop
  std::string scope;            // storage scope of the outputs; "" means the default
  bool is_output = false;
  bool double_buffer = false;
  // (axis, factor, offset): pad that axis' stride to factor * k + offset elements.
  std::vector<std::tuple<IterVar, int, int>> storage_align;
  const ScheduleNode* schedule = nullptr;
};

// One stage of a schedule. A handle: copies share the stage.
class Stage {
 public:
  Stage() = default;
  explicit Stage(Ref<StageNode> node) : node_(std::move(node)) {}
  StageNode* get() const { return node_.get(); }
  StageNode* operator->() const { return node_.get(); }
  bool defined() const { return static_cast<bool>(node_); }
  bool same_as(const Stage& other) const { return node_.get() == other.node_.get(); }
  const std::string& name() const { return node_->op->name; }

  struct SplitResult {
    IterVar outer, inner;
  };
  struct TileResult {
    IterVar x_outer, y_outer, x_inner, y_inner;
  };

  // Splits a loop into an outer loop and an inner loop of `factor` iterations (a positive integer
  // expression); a non-dividing factor computes correctly (guards are added where needed).
  absl::StatusOr<SplitResult> split(const IterVar& parent, Expr factor);
  // Splits into `nparts` outer iterations.
  absl::StatusOr<SplitResult> split_nparts(const IterVar& parent, Expr nparts);
  // Splits x and y and orders the result x_outer, y_outer, x_inner, y_inner.
  absl::StatusOr<TileResult> tile(const IterVar& x, const IterVar& y, Expr x_factor, Expr y_factor);
  // Fuses two adjacent loops (outer immediately outside inner) into one.
  absl::StatusOr<IterVar> fuse(const IterVar& outer, const IterVar& inner);
  // Puts the given loops in the given order, in the positions they occupy; others stay.
  absl::Status reorder(const std::vector<IterVar>& order);

  // Loop annotations. vectorize and unroll need a constant extent.
  absl::Status vectorize(const IterVar& axis);
  absl::Status unroll(const IterVar& axis);
  absl::Status parallel(const IterVar& axis);
  // Binds a loop to a thread index: "blockIdx.x|y|z", "threadIdx.x|y|z" or "vthread". A thread
  // index may be bound once per stage.
  absl::Status bind(const IterVar& axis, const std::string& thread_tag);
  absl::Status pragma(const IterVar& axis, const std::string& key, Expr value = Expr());

  // Where the stage is computed. compute_at needs scope to be a loop of parent and parent to
  // consume this stage there: directly or through inlined stages, or through a stage already
  // computed at that loop.
  absl::Status compute_at(const Stage& parent, const IterVar& scope);
  absl::Status compute_inline();
  absl::Status compute_root();

  // Storage. set_scope names where the outputs live ("global", "shared", "local", ...).
  absl::Status set_scope(const std::string& scope);
  absl::Status storage_align(const IterVar& axis, int factor, int offset);
  absl::Status double_buffer();

  // Replaces the loop nest from `axis` inward by the intrinsic's implementation; matched when
  // lowering, which reports a nest that does not compute what the intrinsic computes.
  absl::Status tensorize(const IterVar& axis, const te::TensorIntrin& intrin);

 private:
  // split or split_nparts: exactly one of factor and nparts is defined.
  absl::StatusOr<SplitResult> Split(const IterVar& parent, Expr factor, Expr nparts);
  absl::Status CheckLeaf(const IterVar& axis, const char* primitive) const;
  absl::Status Annotate(const IterVar& axis, ir::ForKind kind, const char* primitive);
  Ref<StageNode> node_;
};

class ScheduleNode : public Object {
 public:
  std::vector<Operation> outputs;
  std::vector<Stage> stages;  // in dataflow order: producers before consumers
  // The stage of every operation a stage has held (its origin op, the ops cache_read and
  // cache_write rewrote it to), by address. Write it through MapOp only: it keeps each key's
  // operation alive, so that no later operation can be allocated at a key's address and be
  // taken for that stage.
  std::unordered_map<const te::OperationNode*, Stage> stage_of;
  void MapOp(const Operation& op, const Stage& stage);

  // The stage of the operation that owns the IterVar, if any.
  const StageNode* OwnerOf(const ir::IterVarNode* iv) const;

 private:
  std::vector<Operation> mapped_ops_;  // the keys of stage_of, kept alive
};

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(Ref<ScheduleNode> node) : node_(std::move(node)) {}
  ScheduleNode* get() const { return node_.get(); }
  ScheduleNode* operator->() const { return node_.get(); }

  // The stage of an operation or tensor; an error names it when it is not in the schedule.
  absl::StatusOr<Stage> stage(const Operation& op) const;
  // The same, for operations known to be in the schedule (an internal check).
  Stage operator[](const Operation& op) const;
  Stage operator[](const Tensor& t) const { return (*this)[t.op()]; }

  // A stage copying `tensor` into `scope`, read by `readers` instead of tensor.
  absl::StatusOr<Tensor> cache_read(const Tensor& tensor, const std::string& scope,
                                    const std::vector<Operation>& readers);
  // A stage computing `tensor`'s operation into `scope`; the original stage becomes a copy.
  absl::StatusOr<Tensor> cache_write(const Tensor& tensor, const std::string& scope);

 private:
  Ref<ScheduleNode> node_;
};

// A schedule of every operation the outputs depend on, each a root stage with its axes in order.
Schedule create_schedule(const std::vector<Operation>& outputs);

}  // namespace tessel::schedule
