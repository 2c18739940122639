#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>

#include "compiler/ops/nn/pooling.h"
#include "compiler/ops/op_args.h"

// max_pool2d's and avg_pool2d's arguments (OPERATORS.md), read and checked once for every
// target's templates: extents, stride, padding (each entry smaller than the kernel, as torch),
// ceil_mode, count_include_pad (avg only), and the output extents. `name` is the reader's (the
// template's), so errors name it and the key.
namespace tessel::ops::nn {

struct Pool2DProblem {
  int64_t n, c, h, w, oh, ow;
  Pool2DAttrs attrs;
};

absl::StatusOr<Pool2DProblem> ReadPool2D(const std::string& name, const OpArgs& args,
                                         PoolKind kind);

}  // namespace tessel::ops::nn
