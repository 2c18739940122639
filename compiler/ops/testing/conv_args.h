#pragma once

#include <cstdint>

#include "compiler/ops/op_args.h"

// Arguments of a batch-1 conv2d on a square input with a square kernel and the same stride and
// padding on every side (compiler/ops/OPERATORS.md), the shape most template tests use.
namespace tessel::ops::testing {

inline OpArgs SquareConvArgs(int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t stride,
                             int64_t pad, int64_t groups = 1) {
  return {{"n", 1},
          {"ic", ic},
          {"h", hw},
          {"w", hw},
          {"oc", oc},
          {"kh", k},
          {"kw", k},
          {"stride", {stride, stride}},
          {"pad", {pad, pad, pad, pad}},
          {"dilation", {1, 1}},
          {"groups", groups}};
}

}  // namespace tessel::ops::testing
