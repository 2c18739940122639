#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target/target_facts.h"
#include "compiler/te/tensor.h"
#include "compiler/ops/template_util.h"
#include "search/space/config_space.h"

// The GPU schedule of the matrix-product templates of key "gpu" (dense, matmul, batch_matmul,
// rnn_cell, lstm_cell). Each computes sums
//   acc[(b,) i, (g,) j] = sum over r < k of term(b, i, g, j, r)
// (rows i, columns j, an optional batch b and an optional gate axis g: the LSTM's four gates of
// one hidden unit are summed by the thread that applies the cell's math to them) and stores
// out[(b,) i, j], an element-wise function of acc (a bias, a fused tail, the cells' gate math).
// One kernel, in one of two forms chosen by the knob split_k:
//
// Tiled (split_k = 1). Blocks over tiles of rows x columns (blockIdx.y, blockIdx.x; the batch on
// blockIdx.z), threads over the tile (threadIdx.y over rows, threadIdx.x over columns), each
// thread's mi x (gates x) nj sums in registers ("local"). k runs in steps of ki; before each step
// the block's threads together copy the step's operand tiles into shared memory (the template's
// staged copies, StagedTile; the barriers come from thread_sync).
//
// Split k (split_k = s > 1: few rows, long sums, dense and the cells). A block of s threads
// (threadIdx.x, the lanes) computes mi x (gates x) nj outputs; lane t adds the terms r = t,
// t + s, t + 2s, ... of each in registers, so that consecutive lanes read consecutive r (whole
// rows of a [cols, k] weight per warp, coalesced) straight from global memory. The lanes' partial
// sums go through shared memory; then every lane adds them up and stores the block's outputs:
// the s lanes store the same values (the kernel launch lets statements outside the thread loops
// run in all threads). tile_m and tile_n have one thread each in this form.
//
// Padded extents. The sums are declared over whole tiles: rows, columns and (tiled form) k
// rounded up to the tiles (ProductTiles::padded_*), so that their loops need no guards; only the
// stored outputs are guarded. The tiled form's staged copies are padded the same way, with zeros
// (ZeroPadded), so the sums of the padded rows and columns are zero and the padded k adds zeros;
// the split-k form's terms are guarded by the sum's condition (r < k, inside the rows and
// columns) instead. (Guarded accumulators also trip PoCL 3.1: with its optimizer on, a private
// array initialized under a condition and kept across a barrier comes out wrong.)
//
// Knobs:
//   tile_m, tile_n   rows and columns in three: [blocks, threads, per thread] (powers of two;
//                    the blocks round up)
//   tile_k           k in two: [steps, ki] (tiled form; [k, 1] in the split-k form)
//   split_k          s: 1 (tiled) or threads per output sum
//   unroll_max_step  the auto_unroll_max_step pragma (0: none) on the loop of a k step's ki terms
//                    (split k: on the loops over a lane's terms and over the lanes)
//   unroll_explicit  the unroll_explicit pragma: 1 expands the unrolled loops, 0 marks them
// The loops over a thread's sums are always unrolled (registers need constant indices); the loop
// over the k steps never is (it holds the barriers).
// Filters keep the threads per block, the shared memory per block and the accumulators per
// thread within the target's GPU facts.
namespace tessel::ops::cuda {

struct ProductDims {
  int64_t batch = 0;  // 0: no batch axis
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t k = 1;
  int64_t gates = 0;  // 0: no gate axis; else its extent (all in one thread's registers)
  // Whether the split-k form is offered (the term must read its column operand contiguous in r).
  bool allow_split_k = false;

  int64_t gate_extent() const { return gates > 0 ? gates : 1; }
};

struct ProductTiles {
  int64_t m_blocks = 1, m_threads = 1, m_inner = 1;
  int64_t n_blocks = 1, n_threads = 1, n_inner = 1;
  int64_t k_steps = 1, k_inner = 1;
  int64_t split_k = 1;
  int64_t unroll_max_step = 0;
  int64_t unroll_explicit = 0;

  int64_t threads() const { return m_threads * n_threads * split_k; }
  int64_t padded_rows() const { return m_blocks * m_threads * m_inner; }
  int64_t padded_cols() const { return n_blocks * n_threads * n_inner; }
  int64_t padded_k() const { return k_steps * k_inner; }
};

// Declares the knobs and filters above for dims on a GPU target (facts.gpu set).
void DefineProductKnobs(search::ConfigSpace& space, const ProductDims& dims,
                        const target::TargetFacts& facts);

// The untuned choice, as Config::ToJson's "knobs". Few rows and a long sum (when allowed): split k
// over a warp (32 lanes; 16 without warps), 1 to 4 columns a block; otherwise 4 x 4
// sums per thread (fewer where the extents are smaller, 8 rows when there is a single column),
// up to 16 x 16 threads per block and steps of up to 16 through shared memory. Unrolled within 512
// body instances, expanded where there are no warps (OpenCL) and by #pragma unroll on CUDA.
nlohmann::json ProductFallback(const ProductDims& dims, const target::TargetFacts& facts);

ProductTiles ReadProductTiles(const search::Config& config);

// The term of the sum at acc's index (b, i, g, j as the dims have them) and reduction index r.
using ProductTerm = std::function<ir::Expr(const std::vector<ir::Var>& index, const ir::Expr& r)>;

// The sums for a config, over the padded extents: acc, and in the split-k form the partial sums
// it adds up (partial[..., t], acc = sum over t of partial). The term is read at padded indices
// in the tiled form (r < padded_k), only within the logical ones in the split-k form.
struct ProductSums {
  te::Tensor acc;
  te::Tensor partial;  // undefined in the tiled form
};
ProductSums MakeProductSums(const ProductDims& dims, const ProductTiles& tiles,
                            const ProductTerm& term, const std::string& name);

// A copy of an operand that acc reads in the tiled form (a compute stage the template builds,
// ZeroPadded); the schedule keeps the tile of each k step in shared memory.
// `contiguous_axis`: the copy's axis along which its source is contiguous in memory, copied by
// consecutive threads (coalesced reads).
struct StagedTile {
  te::Tensor copy;
  int contiguous_axis = 0;
};

// copy[index] = read(index) where every index is below `extents`, zero elsewhere in `padded`
// (each at least its extent): a staged copy of an operand over padded extents.
te::Tensor ZeroPadded(const std::vector<int64_t>& padded, const std::vector<int64_t>& extents,
                      const std::function<ir::Expr(const std::vector<ir::Var>&)>& read,
                      const std::string& name);

// Schedules out (the operation storing the outputs, which reads acc directly or through inlined
// stages; its axes [(b,) i, j]), the sums and, in the tiled form, the staged copies (none in the
// split-k form: the term reads the operands themselves).
absl::Status ScheduleProduct(schedule::Schedule& s, const te::Operation& out,
                             const ProductSums& sums, const std::vector<StagedTile>& staged,
                             const ProductDims& dims, const ProductTiles& tiles);

}  // namespace tessel::ops::cuda
