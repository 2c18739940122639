// LSTM, unrolled over its (static) sequence into lstm_cell nodes: x_t is row t of X (take), the
// weights are re-laid at import from ONNX's gate order (i, o, f, c) to the operator library's
// (torch's: i, f, g, o), and Y is the cells' h concatenated over time.
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

#include "compiler/graph/onnx/converters.h"
#include "compiler/runtime/dltype.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph::onnx::internal {
namespace {

using runtime::NDArray;

// The sequence is unrolled into one cell per step: a bound on the graph's size.
constexpr int64_t kMaxUnrolledSteps = 4096;

NDArray Int32Row(int64_t t) {
  NDArray out = NDArray::Empty({1}, DLDataType{kDLInt, 32, 1});
  out.data<int32_t>()[0] = static_cast<int32_t>(t);
  return out;
}

// Rows of direction d of a [dirs, 4H, ...] (or [dirs, 8H]) tensor, with the four gate blocks of
// `block` rows each taken from ONNX's order i, o, f, c into i, f, c, o; `first` skips that many
// blocks (the recurrence bias follows the input bias in B).
absl::StatusOr<NDArray> GateRows(const NDArray& t, int64_t d, int64_t block, int64_t first,
                                 ConstantBudget& budget) {
  std::vector<int64_t> rows;
  for (int64_t gate : {0, 2, 3, 1}) {
    for (int64_t r = 0; r < block; ++r) rows.push_back((first + gate) * block + r);
  }
  TESSEL_ASSIGN_OR_RETURN(NDArray dir, Rows(t, 0, {d}, budget));
  std::vector<int64_t> shape(t.shape().begin() + 1, t.shape().end());
  TESSEL_ASSIGN_OR_RETURN(dir, Reshaped(dir, shape, budget));
  return Rows(dir, 0, rows, budget);
}

// The initial state (input i, [dirs, batch, H]) of direction d as [batch, H]; zeros when absent.
absl::StatusOr<ValueId> InitialState(NodeContext& c, int i, int64_t d, int64_t batch,
                                     int64_t hidden, const char* role) {
  if (!c.HasInput(i)) {
    absl::StatusOr<NDArray> zeros = c.budget().Empty({batch, hidden}, kFloat32, role);
    if (!zeros.ok()) return c.Annotate(zeros.status());
    std::fill(zeros->data<float>(), zeros->data<float>() + batch * hidden, 0.0f);
    return c.NewConstant(absl::StrCat(role, "_", d), *std::move(zeros));
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId s, c.Float32(i));
  ValueId row = s;
  if (c.Shape(i)[0] > 1) {
    row = c.Op("take", {s, c.NewConstant(absl::StrCat(role, "_row_", d), Int32Row(d))},
               {{"axis", 0}}, absl::StrCat(role, "_", d));
  }
  return c.Reshape(row, {batch, hidden}, absl::StrCat(role, "_2d_", d));
}

absl::Status ConvertLstm(NodeContext& c) {
  TESSEL_ASSIGN_OR_RETURN(const std::string direction, c.String("direction", "forward"));
  TESSEL_ASSIGN_OR_RETURN(const int64_t layout, c.Int("layout", 0));
  TESSEL_ASSIGN_OR_RETURN(const int64_t input_forget, c.Int("input_forget", 0));
  TESSEL_ASSIGN_OR_RETURN(const int64_t hidden, c.Int("hidden_size", 0));
  if (layout != 0) return c.Unsupported("attribute 'layout' 1");
  if (input_forget != 0) return c.Unsupported("attribute 'input_forget' 1");
  if (c.HasAttr("clip")) return c.Unsupported("attribute 'clip'");
  if (c.HasAttr("activations")) {
    const auto& acts = c.node();
    for (const auto& a : acts.attribute()) {
      if (a.name() != "activations") continue;
      for (int k = 0; k < a.strings_size(); ++k) {
        const std::string want = k % 3 == 0 ? "Sigmoid" : "Tanh";
        if (a.strings(k) != want) {
          return c.Unsupported(
              absl::StrCat("attribute 'activations' [", absl::StrJoin(a.strings(), ", "), "]"));
        }
      }
    }
  }
  if (c.HasInput(7)) return c.Unsupported("peepholes (input 'P')");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return c.Invalid(absl::StrCat("attribute 'direction' '", direction, "'"));
  }
  const std::vector<int64_t> xs = c.Shape(0);
  if (xs.size() != 3) return c.Invalid(absl::StrCat("X ", c.Type(0).ToString(), " must be 3-D"));
  const int64_t seq = xs[0], batch = xs[1], input = xs[2];
  if (seq > kMaxUnrolledSteps) {
    return c.Unsupported(
        absl::StrCat("a sequence of ", seq, " steps (unrolled, at most ", kMaxUnrolledSteps, ")"));
  }
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (c.Shape(1) != std::vector<int64_t>{dirs, 4 * hidden, input} ||
      c.Shape(2) != std::vector<int64_t>{dirs, 4 * hidden, hidden}) {
    return c.Invalid(absl::StrCat("W ", c.Type(1).ToString(), " and R ", c.Type(2).ToString(),
                                  " do not match hidden_size ", hidden, " and X ",
                                  c.Type(0).ToString()));
  }
  if (c.HasInput(4)) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray lens, c.Constant(4, "sequence_lens"));
    absl::StatusOr<std::vector<int64_t>> v = Int64Values(lens, "input 'sequence_lens'");
    if (!v.ok()) return c.Invalid(std::string(v.status().message()));
    for (int64_t l : *v) {
      if (l != seq) return c.Unsupported("sequences shorter than X ('sequence_lens')");
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const NDArray w, c.Constant(1, "W"));
  TESSEL_ASSIGN_OR_RETURN(const NDArray r, c.Constant(2, "R"));
  if (!runtime::SameDLType(w.dtype(), kFloat32) || !runtime::SameDLType(r.dtype(), kFloat32)) {
    return c.Unsupported("weights that are not float32");
  }
  NDArray b;
  if (c.HasInput(3)) {
    TESSEL_ASSIGN_OR_RETURN(b, c.Constant(3, "B"));
    if (b.shape() != std::vector<int64_t>{dirs, 8 * hidden} ||
        !runtime::SameDLType(b.dtype(), kFloat32)) {
      return c.Invalid(absl::StrCat("B ", c.Type(3).ToString(), " must be float32[", dirs, ", ",
                                    8 * hidden, "]"));
    }
  } else {
    absl::StatusOr<NDArray> zeros = c.budget().Empty({dirs, 8 * hidden}, kFloat32, "B");
    if (!zeros.ok()) return c.Annotate(zeros.status());
    b = *std::move(zeros);
    std::fill(b.data<float>(), b.data<float>() + b.NumElements(), 0.0f);
  }
  TESSEL_ASSIGN_OR_RETURN(const ValueId x, c.Float32(0));

  std::vector<ValueId> y_dirs, h_dirs, c_dirs;
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    std::vector<ValueId> weights;
    for (const auto& [t, first] : {std::pair{w, 0}, {r, 0}, {b, 0}, {b, 4}}) {
      TESSEL_ASSIGN_OR_RETURN(NDArray rows, GateRows(t, d, hidden, first, c.budget()));
      weights.push_back(c.NewConstant(absl::StrCat("gates_", weights.size(), "_", d), rows));
    }
    TESSEL_ASSIGN_OR_RETURN(ValueId h, InitialState(c, 5, d, batch, hidden, "initial_h"));
    TESSEL_ASSIGN_OR_RETURN(ValueId cell, InitialState(c, 6, d, batch, hidden, "initial_c"));
    std::vector<ValueId> hs(seq, kInvalid);
    for (int64_t step = 0; step < seq; ++step) {
      const int64_t t = reverse ? seq - 1 - step : step;
      ValueId xt = x;
      if (seq > 1) {
        xt = c.Op("take", {x, c.NewConstant(absl::StrCat("x_row_", t), Int32Row(t))}, {{"axis", 0}},
                  absl::StrCat("x_", d, "_", t));
      }
      xt = c.Reshape(xt, {batch, input}, absl::StrCat("x_2d_", d, "_", t));
      std::vector<ValueId> out =
          c.OpN("lstm_cell", {xt, h, cell, weights[0], weights[1], weights[2], weights[3]},
                nlohmann::json::object(), absl::StrCat("cell_", d, "_", t));
      if (out.size() != 2) return absl::OkStatus();  // the builder kept the error
      h = out[0];
      cell = out[1];
      hs[t] = c.Reshape(h, {1, 1, batch, hidden}, absl::StrCat("y_", d, "_", t));
    }
    y_dirs.push_back(c.Concat(hs, 0, absl::StrCat("y_", d)));
    h_dirs.push_back(c.Reshape(h, {1, batch, hidden}, absl::StrCat("y_h_", d)));
    c_dirs.push_back(c.Reshape(cell, {1, batch, hidden}, absl::StrCat("y_c_", d)));
  }
  auto join = [&](const std::vector<ValueId>& parts, int64_t axis, const std::string& role) {
    return parts.size() == 1 ? parts[0] : c.Op("concatenate", parts, {{"axis", axis}}, role);
  };
  if (c.OutputUsed(0)) c.SetOutput(0, join(y_dirs, 1, "y"));
  if (c.OutputUsed(1)) c.SetOutput(1, join(h_dirs, 0, "y_h"));
  if (c.OutputUsed(2)) c.SetOutput(2, join(c_dirs, 0, "y_c"));
  return absl::OkStatus();
}

}  // namespace

void AddRecurrentConverters(ConverterTable& table) { table["LSTM"] = ConvertLstm; }

}  // namespace tessel::graph::onnx::internal
