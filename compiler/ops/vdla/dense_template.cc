// dense_int8.vdla: the int8 dense layer (OPERATORS.md: dense_int8) on VDLA, the schedule of
// dense.h with its tiling as knobs:
//   tile_m         rows per tile (the batch times the divisors of M / batch)
//   tile_n         output column blocks per tile (the divisors of N / block_out)
//   vthreads       virtual threads the tiles are spread over (1, 2, 4): latency hiding
//   vthread_axis   0: over the row tiles, 1: over the column tiles (only with vthreads > 1; a
//                  batch of one row has one row tile)
//   double_buffer  1: the weight block in two alternating copies
// M, N and K are padded with zeros to the accelerator's blocks (the batch, block_out, block_in):
// ResNet-18's 1000 classes are 63 column blocks, the last half empty. A config whose virtual
// threads do not divide the tiles is filtered out; one whose buffers do not fit is a point of the
// space, which the code generator refuses (naming the buffer): tuning records it as such.
//
// prepare packs the logical [m, k] data and [n, k] weight into the blocked layouts (and the bias
// [n] into [N / bo, batch, bo], the same bias for every row of a batch); finish unpacks the output
// and drops the padding.
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cstring>

#include "compiler/ops/logical_op.h"
#include "compiler/ops/nn/matrix_args.h"
#include "compiler/ops/template.h"
#include "compiler/ops/template_util.h"
#include "compiler/ops/vdla/dense.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::vdla {
namespace {

using runtime::NDArray;

constexpr char kName[] = "dense_int8.vdla";
constexpr DLDataType kInt8{kDLInt, 8, 1};
constexpr DLDataType kInt32{kDLInt, 32, 1};

int64_t RoundUp(int64_t x, int64_t block) { return (x + block - 1) / block * block; }

// The layer's arguments and its shape padded to the accelerator's blocks.
struct Layer {
  nn::DenseInt8Args args;
  DenseShape padded;
};

absl::StatusOr<Layer> ReadLayer(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const nn::DenseInt8Args a, nn::ReadDenseInt8Args(kName, args));
  if (!facts.vdla) {
    return absl::InvalidArgumentError(absl::StrCat(kName, ": needs a vdla target; target '",
                                                   facts.target.ToString(), "' is not one"));
  }
  const hardware::vdla::Config& c = *facts.vdla;
  return Layer{a, DenseShape{.m = static_cast<int>(RoundUp(a.m, c.batch)),
                             .n = static_cast<int>(RoundUp(a.n, c.block_out)),
                             .k = static_cast<int>(RoundUp(a.k, c.block_in))}};
}

DenseTiling ReadTiling(const search::Config& config) {
  return DenseTiling{.tile_m = static_cast<int>(config.knob("tile_m")),
                     .tile_n = static_cast<int>(config.knob("tile_n")),
                     .vthreads = static_cast<int>(config.knob("vthreads")),
                     .vthreads_over_columns = config.knob("vthread_axis") == 1,
                     .double_buffer_weights = config.knob("double_buffer") == 1};
}

absl::StatusOr<search::ConfigSpace> Space(const OpArgs& args, const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const Layer l, ReadLayer(args, facts));
  const hardware::vdla::Config& c = *facts.vdla;
  const int64_t rows = l.padded.m / c.batch, blocks = l.padded.n / c.block_out;
  search::ConfigSpace space;
  std::vector<int64_t> tile_m = Divisors(rows);
  for (int64_t& t : tile_m) t *= c.batch;
  space.define_knob("tile_m", tile_m);
  space.define_knob("tile_n", Divisors(blocks));
  space.define_knob("vthreads", {1, 2, 4});
  space.define_knob("vthread_axis", {0, 1});
  space.define_knob("double_buffer", {0, 1});
  const int64_t m = l.padded.m;
  space.AddFilter("virtual threads dividing the tiles", [m, blocks](const search::Config& config) {
    const DenseTiling t = ReadTiling(config);
    if (t.vthreads == 1) return !t.vthreads_over_columns;
    const int64_t tiles = t.vthreads_over_columns ? blocks / t.tile_n : m / t.tile_m;
    return tiles % t.vthreads == 0;
  });
  return space;
}

// Whether tiling t fits a share of 1 / vthreads of each buffer, as conv2d_tiling.h counts: a
// tile's accumulators (with the tail also its result tile and a bias entry per column block), one
// block of K of its rows and of its weights (two, double-buffered), and its GEMM micro-ops in half
// the micro-op buffer.
bool Fits(const DenseTiling& t, const hardware::vdla::Config& c, bool tail) {
  const int64_t acc = int64_t{t.tile_m} / c.batch * t.tile_n;
  const int64_t copies = t.double_buffer_weights ? 2 : 1;
  const int64_t acc_used = tail ? 2 * acc + t.tile_n : acc;
  return acc_used * t.vthreads <= c.accumulator_entries() &&
         int64_t{t.tile_m} / c.batch * t.vthreads <= c.input_entries() &&
         t.tile_n * copies * t.vthreads <= c.weight_entries() &&
         acc * copies * t.vthreads <= c.uop_entries() / 2;
}

// Rows: the whole batch up to 16 rows a tile. Columns: two virtual threads over the column tiles
// (a batch of one row has one row tile) with the weights double-buffered, each tile the most
// column blocks that fit; else one thread; else the smallest tile.
search::Config Fallback(const search::ConfigSpace& space, const OpArgs& args,
                        const target::TargetFacts& facts) {
  const Layer l = *ReadLayer(args, facts);  // Space has read them
  const hardware::vdla::Config& c = *facts.vdla;
  const bool tail = l.args.requantize.has_value();
  int64_t rows = 1;
  for (int64_t d : Divisors(l.padded.m / c.batch)) {
    if (d <= 16) rows = d;
  }
  const int64_t blocks = l.padded.n / c.block_out;
  DenseTiling chosen{.tile_m = static_cast<int>(rows * c.batch)};
  for (int vthreads : {2, 1}) {
    const std::vector<int64_t> ds = Divisors(blocks);
    for (auto it = ds.rbegin(); it != ds.rend(); ++it) {
      const DenseTiling t{.tile_m = chosen.tile_m,
                          .tile_n = static_cast<int>(*it),
                          .vthreads = vthreads,
                          .vthreads_over_columns = vthreads > 1,
                          .double_buffer_weights = true};
      if ((blocks / *it) % vthreads == 0 && Fits(t, c, tail)) {
        chosen = t;
        break;
      }
    }
    if (chosen.tile_n > 1 || chosen.vthreads > 1) break;
  }
  return ConfigFromKnobs(space, {{"tile_m", chosen.tile_m},
                                 {"tile_n", chosen.tile_n},
                                 {"vthreads", chosen.vthreads},
                                 {"vthread_axis", chosen.vthreads_over_columns ? 1 : 0},
                                 {"double_buffer", chosen.double_buffer_weights ? 1 : 0}});
}

// [rows, cols] int8 -> [R / a, C / b, a, b], zeros past the logical rows and columns.
NDArray PackBlocks(const NDArray& x, int64_t rows_padded, int64_t cols_padded, int64_t a,
                   int64_t b) {
  const int64_t rows = x.shape()[0], cols = x.shape()[1];
  NDArray out = NDArray::Empty({rows_padded / a, cols_padded / b, a, b}, kInt8);
  std::memset(out.data<int8_t>(), 0, static_cast<size_t>(out.NumBytes()));
  const int8_t* in = x.data<int8_t>();
  int8_t* o = out.data<int8_t>();
  const int64_t col_blocks = cols_padded / b;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t q = 0; q < cols; ++q) {
      o[(((r / a) * col_blocks + q / b) * a + r % a) * b + q % b] = in[r * cols + q];
    }
  }
  return out;
}

// [M / a, N / b, a, b] -> the logical [m, n].
NDArray UnpackBlocks(const NDArray& y, int64_t m, int64_t n) {
  const std::vector<int64_t>& s = y.shape();
  const int64_t col_blocks = s[1], a = s[2], b = s[3];
  NDArray out = NDArray::Empty({m, n}, kInt8);
  const int8_t* in = y.data<int8_t>();
  int8_t* o = out.data<int8_t>();
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t q = 0; q < n; ++q) {
      o[r * n + q] = in[(((r / a) * col_blocks + q / b) * a + r % a) * b + q % b];
    }
  }
  return out;
}

// The bias [n] as [N / bo, batch, bo]: each row of a batch adds the same, zeros past n.
NDArray PackBias(const NDArray& bias, int64_t n_padded, int64_t batch, int64_t bo) {
  const int64_t n = bias.shape()[0];
  NDArray out = NDArray::Empty({n_padded / bo, batch, bo}, kInt32);
  std::memset(out.data<int32_t>(), 0, static_cast<size_t>(out.NumBytes()));
  const int32_t* in = bias.data<int32_t>();
  int32_t* o = out.data<int32_t>();
  for (int64_t q = 0; q < n; ++q) {
    for (int64_t r = 0; r < batch; ++r) o[((q / bo) * batch + r) * bo + q % bo] = in[q];
  }
  return out;
}

absl::StatusOr<OpProgram> Instantiate(const search::Config& config, const OpArgs& args,
                                      const target::TargetFacts& facts) {
  TESSEL_ASSIGN_OR_RETURN(const Layer l, ReadLayer(args, facts));
  std::optional<DenseTail> tail;
  const std::optional<nn::Requantize>& rq = l.args.requantize;
  if (rq) tail = DenseTail{.shift = rq->shift, .relu = rq->relu};
  const hardware::vdla::Config& c = *facts.vdla;
  TESSEL_ASSIGN_OR_RETURN(DenseSchedule s, ScheduleDense(l.padded, ReadTiling(config), c, tail));
  OpProgram p;
  p.schedule = s.schedule;
  p.args = s.args;
  const int64_t m = l.args.m, n = l.args.n, k = l.args.k;
  p.flops = 2.0 * static_cast<double>(m * n * k);
  SetLogicalSignature(p, DenseInt8Signature(m, n, k, tail.has_value()));
  const DenseShape d = l.padded;
  const int64_t b = c.batch, bi = c.block_in, bo = c.block_out;
  p.prepare = [d, b, bi,
               bo](const std::vector<NDArray>& in) -> absl::StatusOr<std::vector<NDArray>> {
    std::vector<NDArray> out = {PackBlocks(in[0], d.m, d.k, b, bi),
                                PackBlocks(in[1], d.n, d.k, bo, bi)};
    if (in.size() == 3) out.push_back(PackBias(in[2], d.n, b, bo));
    return out;
  };
  p.finish = [m, n](const std::vector<NDArray>& out) -> absl::StatusOr<std::vector<NDArray>> {
    return std::vector<NDArray>{UnpackBlocks(out[0], m, n)};
  };
  return p;
}

}  // namespace

TESSEL_REGISTER_TEMPLATE("vdla", (Template{.name = kName,
                                           .op = "dense_int8",
                                           .summary = "int8 dense on VDLA's GEMM core: tiles, "
                                                      "virtual threads, double-buffered weights",
                                           .space = Space,
                                           .fallback = Fallback,
                                           .instantiate = Instantiate}));

}  // namespace tessel::ops::vdla
