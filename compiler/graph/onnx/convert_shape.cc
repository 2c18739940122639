// Data movement: Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Concat, Pad, Tile, Expand, and
// the operators that leave their input as it is at inference (Identity, Dropout). A tensor known
// at import is moved here; a graph value gets a graph node.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/graph/onnx/converters.h"
#include "compiler/graph/onnx/tensor_proto.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

constexpr int64_t kNoAxis = std::numeric_limits<int64_t>::min();

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

// Input 0 in a new shape of as many elements: computed here when known, else a reshape node.
absl::Status SetReshaped(NodeContext& c, const std::vector<int64_t>& shape) {
  if (c.Shape(0) == shape) {
    c.Forward(0, 0);
    return absl::OkStatus();
  }
  if (c.IsConstant(0)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(0, "data"));
    absl::StatusOr<NDArray> y = Reshaped(x, shape, c.budget());
    if (!y.ok()) return c.Annotate(y.status());
    c.SetOutput(0, *y);
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.KeptTypeValue(0));
  c.SetOutput(0, c.Op("reshape", {x}, {{"newshape", shape}}));
  return absl::OkStatus();
}

// A list of ints from an attribute (before `opset_as_input`) or from constant input `input`
// (optional when `optional`; absent gives nullopt as an empty, unset result).
absl::StatusOr<std::vector<int64_t>> IntsArg(NodeContext& c, const std::string& name, int input,
                                             int opset_as_input, bool* present) {
  *present = false;
  if (c.opset() < opset_as_input) {
    *present = c.HasAttr(name);
    return c.Ints(name, {});
  }
  if (!c.HasInput(input)) return std::vector<int64_t>();
  *present = true;
  TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(input, name));
  absl::StatusOr<std::vector<int64_t>> v = Int64Values(t, absl::StrCat("input '", name, "'"));
  if (!v.ok()) return c.Invalid(std::string(v.status().message()));
  return v;
}

absl::Status ConvertReshape(NodeContext& c) {
  bool present = false;
  TESSEL_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsArg(c, "shape", 1, 5, &present));
  if (!present) return c.Invalid("the target shape is missing");
  TESSEL_ASSIGN_OR_RETURN(const int64_t allow_zero, c.Int("allowzero", 0));
  const std::vector<int64_t> in = c.Shape(0);
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && allow_zero == 0) {
      if (i >= in.size())
        return c.Invalid(
            absl::StrCat("shape ", ShapeText(shape), " copies axis ", i, " of ", ShapeText(in)));
      shape[i] = in[i];
    } else if (shape[i] == 0) {
      return c.Unsupported("a zero extent (attribute 'allowzero' 1)");
    } else if (shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return c.Invalid(absl::StrCat("shape ", ShapeText(shape), " has an invalid entry"));
    }
  }
  const int64_t total = Product(in, 0, in.size());
  if (inferred >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (static_cast<int>(i) != inferred) {
        if (shape[i] != 0 && known > kMaxElements / shape[i]) known = kMaxElements + 1;
        known *= shape[i];
      }
    }
    if (known == 0 || total % known != 0) {
      return c.Invalid(absl::StrCat("cannot reshape ", ShapeText(in), " to ", ShapeText(shape)));
    }
    shape[inferred] = total / known;
  }
  absl::StatusOr<int64_t> count = CountElements(shape, kMaxElements, "the target shape");
  if (!count.ok() || *count != total) {
    return c.Invalid(absl::StrCat("cannot reshape ", ShapeText(in), " to ", ShapeText(shape)));
  }
  return SetReshaped(c, shape);
}

absl::Status ConvertFlatten(NodeContext& c) {
  const std::vector<int64_t> in = c.Shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  TESSEL_ASSIGN_OR_RETURN(int64_t axis, c.Int("axis", 1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    return c.Invalid(absl::StrCat("attribute 'axis' is out of range for rank ", rank));
  }
  const std::vector<int64_t> out = {Product(in, 0, axis), Product(in, axis, in.size())};
  if (c.IsConstant(0) || in == out) return SetReshaped(c, out);
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  c.SetOutput(0, c.Op("flatten", {x}, {{"axis", axis}}));
  return absl::OkStatus();
}

absl::Status ConvertTranspose(NodeContext& c) {
  const std::vector<int64_t> in = c.Shape(0);
  std::vector<int64_t> reversed;
  for (size_t d = in.size(); d-- > 0;) reversed.push_back(static_cast<int64_t>(d));
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> perm, c.Ints("perm", reversed));
  std::vector<int64_t> identity(in.size());
  for (size_t d = 0; d < in.size(); ++d) identity[d] = static_cast<int64_t>(d);
  if (c.IsConstant(0)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(0, "data"));
    absl::StatusOr<NDArray> y = Transposed(x, perm, c.budget());
    if (!y.ok()) return c.Invalid(std::string(y.status().message()));
    c.SetOutput(0, *y);
    return absl::OkStatus();
  }
  if (perm == identity) {
    c.Forward(0, 0);
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  c.SetOutput(0, c.Op("transpose", {x}, {{"axes", perm}}));
  return absl::OkStatus();
}

absl::Status ConvertSqueeze(NodeContext& c) {
  const std::vector<int64_t> in = c.Shape(0);
  bool present = false;
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, IntsArg(c, "axes", 1, 13, &present));
  std::vector<bool> drop(in.size(), false);
  if (!present) {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  }
  for (int64_t a : axes) {
    absl::StatusOr<int64_t> axis = NormalizeAxis(a, in.size(), "axis");
    if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
    if (in[*axis] != 1) {
      return c.Invalid(absl::StrCat("axis ", a, " of ", ShapeText(in), " is not of extent 1"));
    }
    drop[*axis] = true;
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out.push_back(in[d]);
  }
  return SetReshaped(c, out);
}

absl::Status ConvertUnsqueeze(NodeContext& c) {
  const std::vector<int64_t> in = c.Shape(0);
  bool present = false;
  TESSEL_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, IntsArg(c, "axes", 1, 13, &present));
  if (!present) return c.Invalid("'axes' is missing");
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    absl::StatusOr<int64_t> axis = NormalizeAxis(a, rank, "axis");
    if (!axis.ok()) return c.Invalid(std::string(axis.status().message()));
    if (inserted[*axis]) return c.Invalid(absl::StrCat("axis ", a, " is repeated"));
    inserted[*axis] = true;
  }
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[d] ? 1 : in[next++]);
  return SetReshaped(c, out);
}

absl::Status ConvertConcat(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const int64_t axis, c.Int("axis", c.opset() < 4 ? 1 : kNoAxis));
  if (axis == kNoAxis) return c.Invalid("attribute 'axis' is missing");
  if (c.NumInputs() == 1) {
    c.Forward(0, 0);
    return absl::OkStatus();
  }
  bool all_known = true;
  for (int i = 0; i < c.NumInputs(); ++i) all_known = all_known && c.IsConstant(i);
  if (all_known) {
    std::vector<NDArray> xs;
    for (int i = 0; i < c.NumInputs(); ++i) {
      TESSEL_ASSIGN_OR_RETURN(NDArray x, c.Constant(i, "input"));
      xs.push_back(std::move(x));
    }
    absl::StatusOr<NDArray> y = Concatenated(xs, axis, c.budget());
    if (!y.ok()) return c.Annotate(y.status());
    c.SetOutput(0, *y);
    return absl::OkStatus();
  }
  std::vector<ValueId> xs;
  for (int i = 0; i < c.NumInputs(); ++i) {
    TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(i));
    xs.push_back(x);
  }
  c.SetOutput(0, c.Concat(xs, axis, ""));
  return absl::OkStatus();
}

absl::Status ConvertPad(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const std::string mode, c.String("mode", "constant"));
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    return c.Unsupported(absl::StrCat("attribute 'mode' '", mode, "'"));
  }
  const std::vector<int64_t> in = c.Shape(0);
  const size_t rank = in.size();
  std::vector<int64_t> pads;
  float value = 0;
  if (c.opset() < 11) {
    TESSEL_ASSIGN_OR_RETURN(pads, c.Ints(c.opset() < 2 ? "paddings" : "pads", {}));
    TESSEL_ASSIGN_OR_RETURN(value, c.Float("value", 0.0f));
  } else {
    bool present = false;
    TESSEL_ASSIGN_OR_RETURN(pads, IntsArg(c, "pads", 1, 11, &present));
    if (c.HasInput(2)) {
      TESSEL_ASSIGN_OR_RETURN(const NDArray v, c.Constant(2, "constant_value"));
      absl::StatusOr<double> d = ScalarValue(v, "input 'constant_value'");
      if (!d.ok()) return c.Invalid(std::string(d.status().message()));
      value = ToFloat(*d);
    }
    if (c.HasInput(3)) {
      // opset 18: pads for the listed axes only.
      TESSEL_ASSIGN_OR_RETURN(const NDArray axes_t, c.Constant(3, "axes"));
      absl::StatusOr<std::vector<int64_t>> axes = Int64Values(axes_t, "input 'axes'");
      if (!axes.ok()) return c.Invalid(std::string(axes.status().message()));
      if (pads.size() != 2 * axes->size()) return c.Invalid("'pads' does not match 'axes'");
      std::vector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < axes->size(); ++i) {
        absl::StatusOr<int64_t> a = NormalizeAxis((*axes)[i], rank, "axis");
        if (!a.ok()) return c.Invalid(std::string(a.status().message()));
        full[*a] = pads[i];
        full[*a + rank] = pads[i + axes->size()];
      }
      pads = full;
    }
  }
  if (pads.size() != 2 * rank) {
    return c.Invalid(
        absl::StrCat("'pads' has ", pads.size(), " entries, the input ", rank, " axes"));
  }
  for (int64_t p : pads) {
    if (p < 0) return c.Unsupported(absl::StrCat("negative pads ", ShapeText(pads)));
    if (p > kMaxElements)
      return c.Invalid(absl::StrCat("pads ", ShapeText(pads), " are too large"));
  }
  if (!std::isfinite(value)) return c.Unsupported(absl::StrCat("the pad value ", value));
  const std::vector<int64_t> before(pads.begin(), pads.begin() + rank),
      after(pads.begin() + rank, pads.end());
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    c.Forward(0, 0);
    return absl::OkStatus();
  }
  if (mode == "reflect") {
    for (size_t d = 0; d < rank; ++d) {
      if (std::max(before[d], after[d]) >= in[d]) {
        return c.Unsupported(absl::StrCat("reflect pads ", ShapeText(pads),
                                          " not below the input's extents ", ShapeText(in)));
      }
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));
  nlohmann::json attrs = {{"pad_before", before}, {"pad_after", after}};
  if (mode == "constant") {
    attrs["value"] = value;
  } else {
    attrs["mode"] = mode;
  }
  c.SetOutput(0, c.Op("pad", {x}, attrs));
  return absl::OkStatus();
}

// x repeated n times along `axis` by doubling: x, xx, xxxx, ... and the powers of two n is made
// of joined, so n copies take O(log n) nodes of two to a few dozen inputs.
ValueId Repeat(NodeContext& c, ValueId x, int64_t axis, int64_t n) {
  std::vector<ValueId> parts;
  ValueId power = x;
  for (int64_t bit = 0; (n >> bit) != 0; ++bit) {
    if (bit > 0) {
      power = c.Op("concatenate", {power, power}, {{"axis", axis}},
                   absl::StrCat("axis_", axis, "_times_", int64_t{1} << bit));
    }
    if ((n >> bit) & 1) parts.push_back(power);
  }
  return c.Concat(parts, axis, absl::StrCat("repeat_axis_", axis));
}

// x repeated `reps[d]` times along each axis d (x of the same rank): copies concatenated.
absl::Status SetRepeated(NodeContext& c, const std::vector<int64_t>& reps,
                         const std::string& what) {
  const std::vector<int64_t> in = c.Shape(0);
  std::vector<int64_t> out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if (reps[d] < 1) {
      return c.Unsupported(absl::StrCat(what, " ", ShapeText(reps), " (a zero extent)"));
    }
    if (reps[d] > kMaxElements) {
      return c.Invalid(absl::StrCat(what, " ", ShapeText(reps), " make the output too large"));
    }
    out[d] = in[d] * reps[d];
  }
  absl::Status size_ok = CountElements(out, kMaxElements, "the output").status();
  if (!size_ok.ok()) return c.Invalid(std::string(size_ok.message()));
  if (c.IsConstant(0)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray x, c.Constant(0, "input"));
    absl::StatusOr<NDArray> y = Tiled(x, reps, c.budget());
    if (!y.ok()) return c.Annotate(y.status());
    c.SetOutput(0, *std::move(y));
    return absl::OkStatus();
  }
  TESSEL_ASSIGN_OR_RETURN(ValueId x, c.Float32(0));
  for (size_t d = 0; d < in.size(); ++d) {
    if (reps[d] > 1) x = Repeat(c, x, static_cast<int64_t>(d), reps[d]);
  }
  c.SetOutput(0, x);
  return absl::OkStatus();
}

absl::Status ConvertTile(NodeContext& c) {
  if (c.opset() < 6) return c.Unsupported("Tile before opset 6");
  TESSEL_ASSIGN_OR_RETURN(const NDArray r, c.Constant(1, "repeats"));
  absl::StatusOr<std::vector<int64_t>> reps = Int64Values(r, "input 'repeats'");
  if (!reps.ok()) return c.Invalid(std::string(reps.status().message()));
  if (reps->size() != c.Shape(0).size()) {
    return c.Invalid(absl::StrCat("'repeats' has ", reps->size(), " entries, the input ",
                                  c.Shape(0).size(), " axes"));
  }
  return SetRepeated(c, *reps, "repeats");
}

absl::Status ConvertIdentity(NodeContext& c) {
  c.Forward(0, 0);
  return absl::OkStatus();
}

absl::Status ConvertDropout(NodeContext& c) {
  if (c.OutputUsed(1)) return c.Unsupported("output 'mask'");
  if (c.opset() >= 12 && c.HasInput(2)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray t, c.Constant(2, "training_mode"));
    absl::StatusOr<double> training = ScalarValue(t, "input 'training_mode'");
    if (!training.ok()) return c.Invalid(std::string(training.status().message()));
    if (*training != 0) return c.Unsupported("training mode");
  }
  c.Forward(0, 0);
  return absl::OkStatus();
}

}  // namespace

void AddShapeConverters(ConverterTable& table) {
  table["Reshape"] = ConvertReshape;
  table["Flatten"] = ConvertFlatten;
  table["Transpose"] = ConvertTranspose;
  table["Squeeze"] = ConvertSqueeze;
  table["Unsqueeze"] = ConvertUnsqueeze;
  table["Concat"] = ConvertConcat;
  table["Pad"] = ConvertPad;
  table["Tile"] = ConvertTile;
  table["Identity"] = ConvertIdentity;
  table["Dropout"] = ConvertDropout;
}

}  // namespace tessel::graph::onnx::internal
