#include "compiler/graph/op_defs.h"

#include <absl/strings/str_cat.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "compiler/ops/nn/elementwise.h"
#include "compiler/ops/nn/reduce.h"
#include "compiler/ops/nn/unary.h"
#include "compiler/runtime/dltype.h"

namespace tessel::graph {
namespace {

using nlohmann::json;
using Types = std::vector<TensorType>;
using ArgsFn = std::function<absl::StatusOr<json>(const Types&, const json&)>;

absl::Status RankError(const std::string& op, size_t input, const char* what, size_t rank,
                       const TensorType& t) {
  return absl::InvalidArgumentError(absl::StrCat(op, ": input ", input, " (", what, ") must have ",
                                                 rank, " dimensions, got ", t.ToString()));
}

// attrs plus derived keys; an attribute may not set a key the input types determine.
absl::StatusOr<json> Merge(const std::string& op, const json& attrs,
                           std::initializer_list<std::pair<const char*, json>> derived) {
  json args = attrs;
  for (const auto& [key, value] : derived) {
    if (attrs.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": attribute '", key, "' is not an attribute: the input types determine it"));
    }
    args[key] = value;
  }
  return args;
}

// Checks each input's rank (ranks[i] < 0: any); names holds what each input is, for messages.
absl::Status CheckRanks(const std::string& op, const Types& in,
                        std::initializer_list<std::pair<const char*, int>> ranks) {
  size_t i = 0;
  for (const auto& [what, rank] : ranks) {
    if (i >= in.size()) break;
    if (rank >= 0 && in[i].shape.size() != static_cast<size_t>(rank)) {
      return RankError(op, i, what, static_cast<size_t>(rank), in[i]);
    }
    ++i;
  }
  return absl::OkStatus();
}

OpDef Def(const char* name, OpPattern pattern, int min_inputs, int max_inputs, ArgsFn args,
          int num_outputs = 1) {
  return OpDef{name, pattern, min_inputs, max_inputs, num_outputs, std::move(args), false};
}

// conv2d and bitserial_conv2d: data NCHW, weight O(I/groups)HW.
ArgsFn ConvArgs(const std::string& op) {
  return [op](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    if (absl::Status s = CheckRanks(op, in, {{"data", 4}, {"weight", 4}}); !s.ok()) return s;
    const auto& d = in[0].shape;
    const auto& w = in[1].shape;
    return Merge(op, attrs,
                 {{"n", d[0]},
                  {"ic", d[1]},
                  {"h", d[2]},
                  {"w", d[3]},
                  {"oc", w[0]},
                  {"kh", w[2]},
                  {"kw", w[3]}});
  };
}

absl::StatusOr<json> ConvTransposeArgs(const Types& in, const json& attrs) {
  const std::string op = "conv2d_transpose";
  if (absl::Status s = CheckRanks(op, in, {{"data", 4}, {"weight", 4}}); !s.ok()) return s;
  const auto& d = in[0].shape;
  const auto& w = in[1].shape;  // IOHW
  return Merge(op, attrs,
               {{"n", d[0]},
                {"ic", d[1]},
                {"h", d[2]},
                {"w", d[3]},
                {"oc", w[1]},
                {"kh", w[2]},
                {"kw", w[3]}});
}

// dense and bitserial_dense: data [m, k], weight [n, k] (dense: optional bias [n]).
ArgsFn DenseArgs(const std::string& op, bool takes_bias) {
  return [op, takes_bias](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    if (absl::Status s = CheckRanks(op, in, {{"data", 2}, {"weight", 2}, {"bias", 1}}); !s.ok()) {
      return s;
    }
    if (!takes_bias)
      return Merge(op, attrs,
                   {{"m", in[0].shape[0]}, {"n", in[1].shape[0]}, {"k", in[0].shape[1]}});
    return Merge(op, attrs,
                 {{"m", in[0].shape[0]},
                  {"n", in[1].shape[0]},
                  {"k", in[0].shape[1]},
                  {"bias", in.size() == 3}});
  };
}

absl::StatusOr<json> MatmulArgs(const Types& in, const json& attrs) {
  if (absl::Status s = CheckRanks("matmul", in, {{"A", 2}, {"B", 2}}); !s.ok()) return s;
  return Merge("matmul", attrs,
               {{"m", in[0].shape[0]}, {"n", in[1].shape[1]}, {"k", in[0].shape[1]}});
}

absl::StatusOr<json> BatchMatmulArgs(const Types& in, const json& attrs) {
  if (absl::Status s = CheckRanks("batch_matmul", in, {{"A", 3}, {"B", 3}}); !s.ok()) return s;
  return Merge("batch_matmul", attrs,
               {{"batch", in[0].shape[0]},
                {"m", in[0].shape[1]},
                {"n", in[1].shape[2]},
                {"k", in[0].shape[2]}});
}

// Pooling and batch_norm: data NCHW (batch_norm: then four [c] vectors).
ArgsFn NchwArgs(const std::string& op) {
  return [op](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    if (absl::Status s = CheckRanks(op, in, {{"data", 4}}); !s.ok()) return s;
    const auto& d = in[0].shape;
    return Merge(op, attrs, {{"n", d[0]}, {"c", d[1]}, {"h", d[2]}, {"w", d[3]}});
  };
}

// One input of any rank (the first: layer_norm's x): element-wise, softmax, layer_norm and the
// shape operators.
ArgsFn ShapeArgs(const std::string& op) {
  return [op](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    return Merge(op, attrs, {{"shape", in[0].shape}});
  };
}

// A binary operator of float32 operands; of other types (both the same), `dtype` names theirs.
ArgsFn BinaryArgs(const std::string& op) {
  return [op](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    const DLDataType a = in[0].dtype, b = in[1].dtype;
    if (a.code == kDLFloat && a.bits == 32 && runtime::SameDLType(a, b)) {
      return Merge(op, attrs, {{"a_shape", in[0].shape}, {"b_shape", in[1].shape}});
    }
    if (!runtime::SameDLType(a, b)) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": operands of element types ",
                                                     runtime::DLTypeToString(a), " and ",
                                                     runtime::DLTypeToString(b)));
    }
    return Merge(op, attrs,
                 {{"a_shape", in[0].shape},
                  {"b_shape", in[1].shape},
                  {"dtype", runtime::DLTypeToString(a)}});
  };
}

absl::StatusOr<json> ConcatArgs(const Types& in, const json& attrs) {
  json shapes = json::array();
  for (const TensorType& t : in) shapes.push_back(t.shape);
  return Merge("concatenate", attrs, {{"shapes", shapes}});
}

// take: data of any rank, indices int32 or int64 (`indices_dtype`, named only for int64 so that
// int32 takes keep their task keys) of any rank.
absl::StatusOr<json> TakeArgs(const Types& in, const json& attrs) {
  if (in[1].dtype.code == kDLInt && in[1].dtype.bits == 64) {
    return Merge(
        "take", attrs,
        {{"data_shape", in[0].shape}, {"indices_shape", in[1].shape}, {"indices_dtype", "int64"}});
  }
  return Merge("take", attrs, {{"data_shape", in[0].shape}, {"indices_shape", in[1].shape}});
}

// cast: x of any rank; `from` is its element type (the operator library says which it takes),
// `to` the node's attribute.
absl::StatusOr<json> CastArgs(const Types& in, const json& attrs) {
  return Merge("cast", attrs,
               {{"shape", in[0].shape}, {"from", runtime::DLTypeToString(in[0].dtype)}});
}

// reshape: of float32, or of another type `dtype` names (only then, so that float32 reshapes keep
// their task keys).
absl::StatusOr<json> ReshapeArgs(const Types& in, const json& attrs) {
  if (in[0].dtype.code == kDLFloat && in[0].dtype.bits == 32) {
    return Merge("reshape", attrs, {{"shape", in[0].shape}});
  }
  return Merge("reshape", attrs,
               {{"shape", in[0].shape}, {"dtype", runtime::DLTypeToString(in[0].dtype)}});
}

// rnn_cell and lstm_cell: x [batch, input], h [batch, hidden], ...
ArgsFn CellArgs(const std::string& op) {
  return [op](const Types& in, const json& attrs) -> absl::StatusOr<json> {
    if (absl::Status s = CheckRanks(op, in, {{"x", 2}, {"h", 2}}); !s.ok()) return s;
    return Merge(
        op, attrs,
        {{"batch", in[0].shape[0]}, {"input", in[0].shape[1]}, {"hidden", in[1].shape[1]}});
  };
}

}  // namespace

std::vector<OpDef> AllOpDefs() {
  using P = OpPattern;
  std::vector<OpDef> defs = {
      Def("conv2d", P::kOutEWiseFusable, 2, 2, ConvArgs("conv2d")),
      Def("conv2d_transpose", P::kOutEWiseFusable, 2, 2, ConvTransposeArgs),
      Def("dense", P::kOutEWiseFusable, 2, 3, DenseArgs("dense", true)),
      Def("matmul", P::kOutEWiseFusable, 2, 2, MatmulArgs),
      Def("batch_matmul", P::kOutEWiseFusable, 2, 2, BatchMatmulArgs),
      Def("max_pool2d", P::kOutEWiseFusable, 1, 1, NchwArgs("max_pool2d")),
      Def("avg_pool2d", P::kOutEWiseFusable, 1, 1, NchwArgs("avg_pool2d")),
      Def("global_avg_pool2d", P::kOutEWiseFusable, 1, 1, NchwArgs("global_avg_pool2d")),
      Def("global_max_pool2d", P::kOutEWiseFusable, 1, 1, NchwArgs("global_max_pool2d")),
      Def("batch_norm", P::kBroadcast, 5, 5, NchwArgs("batch_norm")),
      Def("lrn", P::kOpaque, 1, 1, NchwArgs("lrn")),
      Def("layer_norm", P::kOpaque, 3, 3, ShapeArgs("layer_norm")),
      Def("concatenate", P::kInjective, 1, -1, ConcatArgs),
      Def("take", P::kInjective, 2, 2, TakeArgs),
      Def("cast", P::kInjective, 1, 1, CastArgs),
      Def("rnn_cell", P::kOpaque, 6, 6, CellArgs("rnn_cell")),
      Def("lstm_cell", P::kOpaque, 7, 7, CellArgs("lstm_cell"), 2),
      Def("bitserial_conv2d", P::kOpaque, 2, 2, ConvArgs("bitserial_conv2d")),
      Def("bitserial_dense", P::kOpaque, 2, 2, DenseArgs("bitserial_dense", false)),
      // data, weight, and the bias when `shift` requantizes (the logical signature checks).
      Def("conv2d_int8", P::kOpaque, 2, 3, ConvArgs("conv2d_int8")),
      Def("dense_int8", P::kOpaque, 2, 3, DenseArgs("dense_int8", false)),
      Def("quantize", P::kElemWise, 1, 1, ShapeArgs("quantize")),
      Def("dequantize", P::kElemWise, 1, 1, ShapeArgs("dequantize")),
  };
  for (OpDef& def : defs) {
    def.blocked_data = def.name == "conv2d" || def.name == "conv2d_transpose";
  }
  for (const ops::nn::UnaryOp& op : ops::nn::UnaryOps()) {
    defs.push_back(Def(op.name, P::kElemWise, 1, 1, ShapeArgs(op.name)));
  }
  for (const ops::nn::ReduceOp& op : ops::nn::ReduceOps()) {
    defs.push_back(Def(op.name, P::kOpaque, 1, 1, ShapeArgs(op.name)));
  }
  for (const char* op : {"softmax", "log_softmax"}) {
    defs.push_back(Def(op, P::kOpaque, 1, 1, ShapeArgs(op)));
  }
  defs.push_back(Def("reshape", P::kInjective, 1, 1, ReshapeArgs));
  for (const char* op : {"flatten", "transpose", "pad", "layout_transform"}) {
    defs.push_back(Def(op, P::kInjective, 1, 1, ShapeArgs(op)));
  }
  for (ops::nn::BinaryOp kind : ops::nn::AllBinaryOps()) {
    const char* op = ops::nn::BinaryOpName(kind);
    defs.push_back(Def(op, P::kBroadcast, 2, 2, BinaryArgs(op)));
  }
  return defs;
}

}  // namespace tessel::graph
