#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <vector>

#include "compiler/ops/nn/transform.h"
#include "compiler/ops/op_args.h"

// The data-movement operators' arguments (OPERATORS.md), read and checked in one place for every
// reader of them: the logical signatures and each target's templates. Errors name the argument
// (through the reader, so they name the operator or template too). The checks here are those of
// the arguments alone; the computes (transform.h) check the rest and their errors are attributed
// to an argument with ArgReader::ErrorIn. layout_transform's reader is ReadLayoutTransformArgs
// (layout.h).
namespace tessel::ops::nn {

struct ConcatenateArgs {
  std::vector<std::vector<int64_t>> shapes;  // one per input, all of one rank
  int64_t axis = 0;                          // in [0, rank)
};
absl::StatusOr<ConcatenateArgs> ReadConcatenateArgs(const ArgReader& reader, const OpArgs& args);

struct ReshapeArgs {
  std::vector<int64_t> shape, newshape;
  std::vector<int64_t> out_shape;  // newshape resolved (ReshapeShape), non-empty
  // `dtype`: float32 (the default), float64, int32 or int64: a reshape moves elements of any.
  ir::DataType dtype = ir::kFloat32;
};
absl::StatusOr<ReshapeArgs> ReadReshapeArgs(const ArgReader& reader);

struct FlattenArgs {
  std::vector<int64_t> shape;
  int64_t axis = 1;                // in [0, rank]
  std::vector<int64_t> out_shape;  // [prod(shape[:axis]), prod(shape[axis:])]
};
absl::StatusOr<FlattenArgs> ReadFlattenArgs(const ArgReader& reader);

struct TransposeArgs {
  std::vector<int64_t> shape;
  std::vector<int64_t> axes;  // one per dimension, each in [-rank, rank)
};
absl::StatusOr<TransposeArgs> ReadTransposeArgs(const ArgReader& reader);

struct PadArgs {
  std::vector<int64_t> shape;
  std::vector<int64_t> before, after;  // one per dimension, each >= 0
  double value = 0;                    // mode constant's
  PadMode mode = PadMode::kConstant;   // `mode`: "constant", "edge" or "reflect"
};
absl::StatusOr<PadArgs> ReadPadArgs(const ArgReader& reader);

}  // namespace tessel::ops::nn
