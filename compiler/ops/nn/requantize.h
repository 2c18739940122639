#pragma once

#include <absl/status/statusor.h>

#include <optional>
#include <string>

#include "compiler/ops/op_args.h"

// The requantization arguments of conv2d_int8 (OPERATORS.md): with `shift`, the int32 sums plus an
// int32 bias per output channel, shifted right arithmetically and clipped to int8
// ([-127, 127], or [0, 127] with `relu`); without it, the sums' low 8 bits.
namespace tessel::ops::nn {

struct Requantize {
  int shift = 0;
  bool relu = false;
};

// nullopt without `shift`. Errors (from `what`) name the key: a shift outside 0-31, `relu`
// without a shift.
absl::StatusOr<std::optional<Requantize>> ReadRequantize(const std::string& what,
                                                         const OpArgs& args);

}  // namespace tessel::ops::nn
