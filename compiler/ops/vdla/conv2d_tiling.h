#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "compiler/ops/vdla/conv2d.h"
#include "hardware/vdla/config.h"

// A conv2d tiling chosen by rule, without measuring: what an untuned build (the template's
// fallback) and the Table 2 bench use.
namespace tessel::ops::vdla {

// How ChooseConv2dTiling ranks the tiles that fit.
enum class TilingRule {
  kLargestTile,      // the most accumulator entries
  kMostWorkPerByte,  // the most GEMMs per byte one input channel block loads
};

// The best tile (rows x channel blocks) by `rule` whose buffers fit a share of 1 / vthreads of
// each on-chip buffer and whose GEMM micro-ops fit half the micro-op buffer (with the kernel block
// double-buffered: two kernel blocks, and two sets of micro-ops, one per copy), the virtual
// threads over row tiles or else over channel tiles; none when no tiling fits. With `tail` (the
// requantizing ALU tail of conv2d.h), a tile's accumulator share also holds the tail's result
// tile and its bias entries.
std::optional<Conv2dTiling> ChooseConv2dTiling(const Conv2dShape& shape,
                                               const hardware::vdla::Config& config, int vthreads,
                                               bool double_buffer, TilingRule rule,
                                               bool tail = false);

// The tiling as conv2d_int8.vdla's knobs ({"tile_h": 2, ...}, Config::ToJson's "knobs").
nlohmann::json TilingKnobs(const Conv2dTiling& tiling);

}  // namespace tessel::ops::vdla
