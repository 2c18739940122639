#include "compiler/ops/nn/transform_args.h"

#include <absl/strings/str_cat.h>

#include "compiler/ops/nn/cast.h"
#include "compiler/ops/nn/shape.h"
#include "compiler/ops/nn/transform.h"
#include "compiler/support/status_macros.h"

namespace tessel::ops::nn {

absl::StatusOr<ConcatenateArgs> ReadConcatenateArgs(const ArgReader& reader, const OpArgs& args) {
  auto shapes_error = [&] {
    return reader.Error(
        "argument 'shapes' must be a non-empty list of shapes of one rank (lists of integers >= "
        "1)");
  };
  if (!args.is_object() || !args.contains("shapes") || !args.at("shapes").is_array() ||
      args.at("shapes").empty()) {
    return shapes_error();
  }
  ConcatenateArgs out;
  for (const OpArgs& s : args.at("shapes")) {
    const OpArgs one = {{"shape", s}};
    absl::StatusOr<std::vector<int64_t>> shape = ArgReader("", one).Shape("shape");
    if (!shape.ok() || (!out.shapes.empty() && shape->size() != out.shapes[0].size())) {
      return shapes_error();
    }
    out.shapes.push_back(*std::move(shape));
  }
  const int64_t rank = static_cast<int64_t>(out.shapes[0].size());
  TESSEL_ASSIGN_OR_RETURN(out.axis, reader.Int("axis", -rank));
  if (out.axis >= rank) {
    return reader.Error(absl::StrCat("argument 'axis' must be below the rank ", rank));
  }
  if (out.axis < 0) out.axis += rank;
  return out;
}

absl::StatusOr<ReshapeArgs> ReadReshapeArgs(const ArgReader& reader) {
  ReshapeArgs out;
  TESSEL_ASSIGN_OR_RETURN(out.shape, reader.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(out.newshape, reader.Ints("newshape", -1, -1));
  absl::StatusOr<std::vector<int64_t>> resolved = ReshapeShape(out.shape, out.newshape);
  if (!resolved.ok()) return reader.ErrorIn("newshape", resolved.status());
  if (resolved->empty()) return reader.Error("argument 'newshape' must not be empty");
  out.out_shape = *std::move(resolved);
  TESSEL_ASSIGN_OR_RETURN(out.dtype, CastElementTypeOr(reader, "dtype"));
  return out;
}

absl::StatusOr<FlattenArgs> ReadFlattenArgs(const ArgReader& reader) {
  FlattenArgs out;
  TESSEL_ASSIGN_OR_RETURN(out.shape, reader.Shape("shape"));
  TESSEL_ASSIGN_OR_RETURN(out.axis, reader.IntOr("axis", 1, 0));
  if (out.axis > static_cast<int64_t>(out.shape.size())) {
    return reader.Error(
        absl::StrCat("argument 'axis' must be at most the rank ", out.shape.size()));
  }
  out.out_shape = {NumElements({out.shape.begin(), out.shape.begin() + out.axis}),
                   NumElements({out.shape.begin() + out.axis, out.shape.end()})};
  return out;
}

absl::StatusOr<TransposeArgs> ReadTransposeArgs(const ArgReader& reader) {
  TransposeArgs out;
  TESSEL_ASSIGN_OR_RETURN(out.shape, reader.Shape("shape"));
  const int64_t rank = static_cast<int64_t>(out.shape.size());
  TESSEL_ASSIGN_OR_RETURN(out.axes, reader.Ints("axes", static_cast<int>(rank), -rank));
  for (int64_t a : out.axes) {
    if (a >= rank) {
      return reader.Error(absl::StrCat("argument 'axes' must be a permutation of 0..", rank - 1));
    }
  }
  return out;
}

absl::StatusOr<PadArgs> ReadPadArgs(const ArgReader& reader) {
  PadArgs out;
  TESSEL_ASSIGN_OR_RETURN(out.shape, reader.Shape("shape"));
  const int rank = static_cast<int>(out.shape.size());
  TESSEL_ASSIGN_OR_RETURN(out.before, reader.Ints("pad_before", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(out.after, reader.Ints("pad_after", rank, 0));
  TESSEL_ASSIGN_OR_RETURN(out.value, reader.FloatOr("value", 0.0));
  // (No TESSEL_ASSIGN_OR_RETURN into a string: GCC 12 warns of it as maybe uninitialized.)
  const absl::StatusOr<std::string> mode = reader.StringOr("mode", "constant");
  if (!mode.ok()) return mode.status();
  if (*mode == "edge") {
    out.mode = PadMode::kEdge;
  } else if (*mode == "reflect") {
    out.mode = PadMode::kReflect;
  } else if (*mode != "constant") {
    return reader.Error(absl::StrCat(
        "argument 'mode' must be \"constant\", \"edge\" or \"reflect\", got \"", *mode, "\""));
  }
  return out;
}

}  // namespace tessel::ops::nn
