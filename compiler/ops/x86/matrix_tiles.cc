#include "compiler/ops/x86/matrix_tiles.h"

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/te/operation.h"

namespace tessel::ops::x86 {
namespace {

using schedule::Stage;

int64_t FloorPow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

const te::ComputeOpNode* ComputeOf(const te::Operation& op) {
  const auto* c = op.as<te::ComputeOpNode>();
  TESSEL_CHECK(c != nullptr) << op.name() << " is not a compute";
  return c;
}

// Splits `axis` into [outer, middle, inner] with inner = sizes[2], middle = sizes[1].
absl::StatusOr<std::array<ir::IterVar, 3>> Split3(Stage& stage, const ir::IterVar& axis,
                                                  const std::array<int64_t, 3>& sizes) {
  const int block = static_cast<int>(sizes[1] * sizes[2]);
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult outer, stage.split(axis, block));
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult inner,
                          stage.split(outer.inner, static_cast<int>(sizes[2])));
  return std::array<ir::IterVar, 3>{outer.outer, inner.outer, inner.inner};
}

absl::Status ScheduleAccumulator(schedule::Schedule& s, const te::Tensor& acc, const Stage& parent,
                                 const ir::IterVar& at, const MatrixTiles& t) {
  Stage stage = s[acc];
  TESSEL_RETURN_IF_ERROR(stage.compute_at(parent, at));
  const te::ComputeOpNode* c = ComputeOf(stage->op);
  TESSEL_CHECK(!c->reduce_axis.empty()) << acc.name() << " is not a reduction";
  std::vector<ir::IterVar> order(c->reduce_axis.begin(), c->reduce_axis.end() - 1);
  TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult k,
                          stage.split(c->reduce_axis.back(), static_cast<int>(t.k[1])));
  order.push_back(k.outer);
  order.push_back(k.inner);
  order.insert(order.end(), c->axis.begin(), c->axis.end());
  TESSEL_RETURN_IF_ERROR(stage.reorder(order));
  if (t.k[1] > 1) TESSEL_RETURN_IF_ERROR(stage.unroll(k.inner));
  for (size_t d = 0; d + 1 < c->axis.size(); ++d) {
    TESSEL_RETURN_IF_ERROR(stage.unroll(c->axis[d]));
  }
  return stage.vectorize(c->axis.back());
}

}  // namespace

void DefineMatrixTileKnobs(search::ConfigSpace& space, int64_t m, int64_t n, int64_t k,
                           const target::TargetFacts& facts) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  search::SplitOptions y{search::SplitPolicy::kPowerOfTwo, 3, 16, {}};
  search::SplitOptions x{search::SplitPolicy::kPowerOfTwo, 3, 16 * lanes, {}};
  search::SplitOptions r{search::SplitPolicy::kPowerOfTwo, 2, 16, {}};
  space.define_split("tile_y", m, y);
  space.define_split("tile_x", n, x);
  space.define_split("tile_k", k, r);
}

nlohmann::json MatrixTileFallback(int64_t m, int64_t n, int64_t k, const target::TargetFacts& facts,
                                  int column_groups) {
  const int64_t lanes = std::max(facts.lanes(), 4);
  const int64_t accumulators = facts.vector_registers / 2;
  // Rows: up to a quarter of the registers (8 with AVX-512, 4 with AVX2), fewer when the column groups would not fit otherwise.
  int64_t rows = FloorPow2(std::min<int64_t>(m, facts.vector_registers / 4));
  rows = std::min(rows, FloorPow2(std::max<int64_t>(accumulators / column_groups, 1)));
  // Vectors per row and group: the rest of the accumulators, at most 8 (m = 1 streams the
  // weight at the memory's speed with 4 to 16 alike).
  const int64_t vectors =
      std::clamp<int64_t>(FloorPow2(accumulators / (rows * column_groups)), 1, 8);
  const int64_t cols = std::min(FloorPow2(n), vectors * lanes);
  const int64_t unroll = 1;
  return {{"tile_y", {CeilDiv(m, rows), 1, rows}},
          {"tile_x", {CeilDiv(n, cols), 1, cols}},
          {"tile_k", {CeilDiv(k, unroll), unroll}}};
}

MatrixTiles ReadMatrixTiles(const search::Config& config) {
  MatrixTiles t;
  const std::vector<int64_t>& y = config.split("tile_y");
  const std::vector<int64_t>& x = config.split("tile_x");
  const std::vector<int64_t>& k = config.split("tile_k");
  t.y = {y[0], y[1], y[2]};
  t.x = {x[0], x[1], x[2]};
  t.k = {k[0], k[1]};
  return t;
}

absl::Status ScheduleMatrixTiles(schedule::Schedule& s, const te::Operation& out,
                                 const std::vector<te::Tensor>& accs, const MatrixTiles& t,
                                 const target::TargetFacts& facts) {
  Stage stage = s[out];
  const te::ComputeOpNode* c = ComputeOf(out);
  const size_t nd = c->axis.size();
  TESSEL_CHECK(nd >= 2) << out.name() << " has fewer than two axes";
  TESSEL_ASSIGN_OR_RETURN(auto y, Split3(stage, c->axis[nd - 2], t.y));
  TESSEL_ASSIGN_OR_RETURN(auto x, Split3(stage, c->axis[nd - 1], t.x));
  std::vector<ir::IterVar> order(c->axis.begin(), c->axis.end() - 2);
  order.insert(order.end(), {x[0], y[0], y[1], x[1], y[2], x[2]});
  TESSEL_RETURN_IF_ERROR(stage.reorder(order));
  // Blocks (with the batch) form one parallel loop.
  ir::IterVar blocks = order[0];
  for (size_t i = 1; i + 4 < order.size(); ++i) {
    TESSEL_ASSIGN_OR_RETURN(blocks, stage.fuse(blocks, order[i]));
  }
  if (facts.cores > 1) TESSEL_RETURN_IF_ERROR(stage.parallel(blocks));
  TESSEL_RETURN_IF_ERROR(stage.unroll(y[2]));
  TESSEL_RETURN_IF_ERROR(stage.vectorize(x[2]));
  for (const te::Tensor& acc : accs) {
    TESSEL_RETURN_IF_ERROR(ScheduleAccumulator(s, acc, stage, x[1], t));
  }
  return absl::OkStatus();
}

absl::Status ScheduleCopyStage(schedule::Schedule& s, const te::Tensor& t,
                               const target::TargetFacts& facts) {
  Stage stage = s[t];
  const te::ComputeOpNode* c = ComputeOf(t.op());
  const std::vector<ir::IterVar>& axes = c->axis;
  const int64_t* inner = ir::AsConstInt(c->shape.back());
  const int lanes = std::max(facts.lanes(), 4);
  if (inner != nullptr && *inner % lanes == 0) {
    TESSEL_ASSIGN_OR_RETURN(Stage::SplitResult v, stage.split(axes.back(), lanes));
    TESSEL_RETURN_IF_ERROR(stage.vectorize(v.inner));
  }
  if (facts.cores > 1 && axes.size() >= 2) {
    ir::IterVar outer = axes[0];
    if (axes.size() >= 3) {
      TESSEL_ASSIGN_OR_RETURN(outer, stage.fuse(axes[0], axes[1]));
    }
    TESSEL_RETURN_IF_ERROR(stage.parallel(outer));
  }
  return absl::OkStatus();
}

absl::Status ScheduleReductionStage(schedule::Schedule& s, const te::Tensor& t,
                                    const target::TargetFacts& facts) {
  Stage stage = s[t];
  const std::vector<ir::IterVar>& axes = ComputeOf(t.op())->axis;
  if (facts.cores <= 1 || axes.empty()) return absl::OkStatus();
  ir::IterVar outer = axes[0];
  if (axes.size() >= 2) {
    TESSEL_ASSIGN_OR_RETURN(outer, stage.fuse(axes[0], axes[1]));
  }
  return stage.parallel(outer);
}

}  // namespace tessel::ops::x86
