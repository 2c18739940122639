#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ops/nn/requantize.h"
#include "compiler/ops/op_args.h"

// The matrix operators' arguments (OPERATORS.md: dense, dense_int8, matmul, batch_matmul,
// rnn_cell, lstm_cell), read and checked once for every target's templates. `name` is the reader's
// (the template's), so errors name it and the key.
namespace tessel::ops::nn {

struct DenseArgs {
  int64_t m, n, k;
  bool bias;
};
absl::StatusOr<DenseArgs> ReadDenseArgs(const std::string& name, const OpArgs& args);

// dense_int8's: dense's extents (no `bias` key: the int32 bias comes with `shift`) and the
// requantization (requantize.h).
struct DenseInt8Args {
  int64_t m, n, k;
  std::optional<Requantize> requantize;
};
absl::StatusOr<DenseInt8Args> ReadDenseInt8Args(const std::string& name, const OpArgs& args);

struct MatmulArgs {
  int64_t batch;  // 0 for matmul (no batch axis)
  int64_t m, n, k;
};
// batched: whether the operator is batch_matmul (reads "batch").
absl::StatusOr<MatmulArgs> ReadMatmulArgs(const std::string& name, bool batched,
                                          const OpArgs& args);

struct CellArgs {
  int64_t batch, input, hidden;
};
absl::StatusOr<CellArgs> ReadCellArgs(const std::string& name, const OpArgs& args);

}  // namespace tessel::ops::nn
