#include "compiler/ops/vdla/conv2d_tiling.h"

#include <cstdint>

namespace tessel::ops::vdla {

std::optional<Conv2dTiling> ChooseConv2dTiling(const Conv2dShape& v,
                                               const hardware::vdla::Config& c, int vthreads,
                                               bool double_buffer, TilingRule rule, bool tail) {
  std::optional<Conv2dTiling> best;
  double best_score = 0;
  const int blocks = v.o / c.block_out;
  const int copies = double_buffer ? 2 : 1;
  for (bool over_channels : {false, true}) {
    for (int tile_o = 1; tile_o <= blocks; ++tile_o) {
      if (blocks % tile_o != 0) continue;
      if (over_channels && (blocks / tile_o) % vthreads != 0) continue;
      for (int tile_h = 1; tile_h <= v.oh(); ++tile_h) {
        if (v.oh() % tile_h != 0) continue;
        if (!over_channels && (v.oh() / tile_h) % vthreads != 0) continue;
        const int64_t acc = int64_t{tile_h} * v.ow() * tile_o;
        const int64_t inp = int64_t{(tile_h - 1) * v.stride + v.k} * (v.w + 2 * v.pad);
        const int64_t wgt = int64_t{v.k} * v.k * tile_o * copies;
        const int64_t uops = acc * v.k * v.k * copies;
        // The tail's result tile beside the sums, and one bias entry per channel block.
        const int64_t acc_used = tail ? 2 * acc + tile_o : acc;
        if (acc_used * vthreads > c.accumulator_entries() || inp * vthreads > c.input_entries() ||
            wgt * vthreads > c.weight_entries() || uops * vthreads > c.uop_entries() / 2) {
          continue;
        }
        const int64_t loaded =
            inp * c.input_entry_bytes() + int64_t{v.k} * v.k * tile_o * c.weight_entry_bytes();
        const double score = rule == TilingRule::kLargestTile
                                 ? static_cast<double>(acc)
                                 : static_cast<double>(acc * v.k * v.k) / loaded;
        if (score > best_score) {
          best_score = score;
          best =
              Conv2dTiling{tile_h, tile_o, vthreads, over_channels && vthreads > 1, double_buffer};
        }
      }
    }
  }
  return best;
}

nlohmann::json TilingKnobs(const Conv2dTiling& t) {
  return {{"tile_h", t.tile_h},
          {"tile_o", t.tile_o},
          {"vthreads", t.vthreads},
          {"vthread_axis", t.vthreads_over_channels ? 1 : 0},
          {"double_buffer", t.double_buffer_weights ? 1 : 0}};
}

}  // namespace tessel::ops::vdla
