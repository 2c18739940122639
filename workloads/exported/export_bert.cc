// bert_base as torch.onnx.export writes Hugging Face's BertModel at opset 14 (PyTorch 2.0's
// default opset, before LayerNormalization and Gelu were ONNX operators):
//   - input_ids and attention_mask int64 [N, S]; embeddings as Gather of the word table by the
//     ids, and of the position and token type tables by Constant ids, added;
//   - the mask as Unsqueeze, Unsqueeze, Cast to float, Sub from 1, Mul by float32's lowest;
//   - each linear layer as MatMul of the 3-D activations by the folded transposed weight, then
//     Add of the bias; heads split by Reshape to [N, S, 12, 64] and Transpose, the key's second
//     Transpose (k.transpose(-1, -2)) kept; 4-D MatMuls, Div by 8, Add of the mask, Softmax;
//   - LayerNorm decomposed: ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul, Add;
//   - GELU as x * 0.5 * (1 + Erf(x / sqrt 2)): Mul, Div, Erf, Add, Mul.
#include <absl/strings/str_cat.h>

#include <cmath>
#include <limits>

#include "compiler/graph/onnx/proto_builder.h"
#include "compiler/support/status_macros.h"
#include "workloads/exported/export_graph.h"
#include "workloads/exported/torch_style.h"

namespace tessel::workloads::exported::internal {
namespace {

using runtime::NDArray;

constexpr int kBertOpset = 14;
constexpr int64_t kHeads = 12;

class BertWriter {
 public:
  BertWriter(const graph::Graph& g, int64_t batch, int64_t sequence, int64_t hidden)
      : g_(g), m_("main_graph", kBertOpset), n_(batch), s_(sequence), hidden_(hidden) {}

  TorchStyleModel& model() { return m_; }

  absl::StatusOr<std::string> Param(const std::string& name) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray a, ConstantNamed(g_, name));
    return m_.Parameter(name, a);
  }

  // nn.Linear on [N, S, k]: MatMul by the transposed weight, Add of the bias.
  absl::StatusOr<std::string> Linear(const std::string& scope, const std::string& x) {
    TESSEL_ASSIGN_OR_RETURN(const NDArray w, ConstantNamed(g_, scope + ".weight"));
    const std::string y = m_.Op(scope, "MatMul", {x, m_.Folded("MatMul", TransposedMatrix(w))});
    TESSEL_ASSIGN_OR_RETURN(const std::string b, Param(scope + ".bias"));
    return m_.Op(scope, "Add", {b, y});
  }

  absl::StatusOr<std::string> LayerNorm(const std::string& scope, const std::string& x) {
    auto mean = [&](const std::string& v) {
      ::onnx::NodeProto& r = m_.Node(scope, "ReduceMean", {v});
      graph::onnx::SetAttr(r, "axes", std::vector<int64_t>{-1});
      graph::onnx::SetAttr(r, "keepdims", int64_t{1});
      return r.output(0);
    };
    const std::string d = m_.Op(scope, "Sub", {x, mean(x)});
    const std::string var = mean(m_.Op(scope, "Pow", {d, m_.FloatScalar(scope, 2.0f)}));
    const std::string sd =
        m_.Op(scope, "Sqrt", {m_.Op(scope, "Add", {var, m_.FloatScalar(scope, 1e-12f)})});
    const std::string normed = m_.Op(scope, "Div", {d, sd});
    TESSEL_ASSIGN_OR_RETURN(const std::string gamma, Param(scope + ".weight"));
    TESSEL_ASSIGN_OR_RETURN(const std::string beta, Param(scope + ".bias"));
    return m_.Op(scope, "Add", {m_.Op(scope, "Mul", {normed, gamma}), beta});
  }

  std::string Transpose(const std::string& scope, const std::string& x,
                        const std::vector<int64_t>& perm) {
    ::onnx::NodeProto& t = m_.Node(scope, "Transpose", {x});
    graph::onnx::SetAttr(t, "perm", perm);
    return t.output(0);
  }

  // [N, S, hidden] -> [N, 12, S, 64].
  std::string Heads(const std::string& scope, const std::string& x) {
    const std::string split =
        m_.Op(scope, "Reshape", {x, m_.Int64s(scope, {n_, s_, kHeads, hidden_ / kHeads})});
    return Transpose(scope, split, {0, 2, 1, 3});
  }

  absl::StatusOr<std::string> Attention(const std::string& p, const std::string& x,
                                        const std::string& mask) {
    const std::string s = p + ".self";
    TESSEL_ASSIGN_OR_RETURN(const std::string q, Linear(s + ".query", x));
    TESSEL_ASSIGN_OR_RETURN(const std::string k, Linear(s + ".key", x));
    TESSEL_ASSIGN_OR_RETURN(const std::string v, Linear(s + ".value", x));
    const std::string kt = Transpose(s, Heads(s, k), {0, 1, 3, 2});
    std::string scores = m_.Op(s, "MatMul", {Heads(s, q), kt});
    scores = m_.Op(s, "Div", {scores, m_.FloatScalar(s, 8.0f)});
    scores = m_.Op(s, "Add", {scores, mask});
    ::onnx::NodeProto& softmax = m_.Node(s, "Softmax", {scores});
    graph::onnx::SetAttr(softmax, "axis", int64_t{-1});
    std::string context = m_.Op(s, "MatMul", {softmax.output(0), Heads(s, v)});
    context = Transpose(s, context, {0, 2, 1, 3});
    context = m_.Op(s, "Reshape", {context, m_.Int64s(s, {n_, s_, hidden_})});
    const std::string o = p + ".output";
    TESSEL_ASSIGN_OR_RETURN(const std::string y, Linear(o + ".dense", context));
    return LayerNorm(o + ".LayerNorm", m_.Op(o, "Add", {y, x}));
  }

  absl::StatusOr<std::string> Layer(const std::string& p, const std::string& x,
                                    const std::string& mask) {
    TESSEL_ASSIGN_OR_RETURN(const std::string a, Attention(p + ".attention", x, mask));
    const std::string i = p + ".intermediate";
    TESSEL_ASSIGN_OR_RETURN(const std::string h, Linear(i + ".dense", a));
    // x * 0.5 * (1.0 + erf(x / sqrt(2.0))).
    const std::string half = m_.Op(i, "Mul", {h, m_.FloatScalar(i, 0.5f)});
    std::string e = m_.Op(i, "Div", {h, m_.FloatScalar(i, static_cast<float>(std::sqrt(2.0)))});
    e = m_.Op(i, "Add", {m_.Op(i, "Erf", {e}), m_.FloatScalar(i, 1.0f)});
    const std::string gelu = m_.Op(i, "Mul", {half, e});
    TESSEL_ASSIGN_OR_RETURN(const std::string y, Linear(p + ".output.dense", gelu));
    return LayerNorm(p + ".output.LayerNorm", m_.Op(p + ".output", "Add", {y, a}));
  }

  absl::StatusOr<std::string> Embeddings(const std::string& ids) {
    const std::string e = "embeddings";
    TESSEL_ASSIGN_OR_RETURN(const std::string word, Param(e + ".word_embeddings.weight"));
    TESSEL_ASSIGN_OR_RETURN(const std::string position, Param(e + ".position_embeddings.weight"));
    TESSEL_ASSIGN_OR_RETURN(const std::string type, Param(e + ".token_type_embeddings.weight"));
    NDArray positions = NDArray::Empty({1, s_}, DLDataType{kDLInt, 64, 1});
    NDArray types = NDArray::Empty({1, s_}, DLDataType{kDLInt, 64, 1});
    for (int64_t i = 0; i < s_; ++i) {
      positions.data<int64_t>()[i] = i;
      types.data<int64_t>()[i] = 0;
    }
    std::string x = m_.Op(e + ".word_embeddings", "Gather", {word, ids});
    const std::string t =
        m_.Op(e + ".token_type_embeddings", "Gather", {type, m_.Constant(e, types)});
    x = m_.Op(e, "Add", {x, t});
    const std::string pe =
        m_.Op(e + ".position_embeddings", "Gather", {position, m_.Constant(e, positions)});
    x = m_.Op(e, "Add", {x, pe});
    return LayerNorm(e + ".LayerNorm", x);
  }

  // (1.0 - mask[:, None, None, :].to(float)) * finfo(float).min.
  std::string Mask(const std::string& mask) {
    std::string m = m_.Op("", "Unsqueeze", {mask, m_.Int64s("", {1})});
    m = m_.Op("", "Unsqueeze", {m, m_.Int64s("", {2})});
    ::onnx::NodeProto& cast = m_.Node("", "Cast", {m});
    graph::onnx::SetAttr(cast, "to", int64_t{::onnx::TensorProto::FLOAT});
    m = m_.Op("", "Sub", {m_.FloatScalar("", 1.0f), cast.output(0)});
    return m_.Op("", "Mul", {m, m_.FloatScalar("", std::numeric_limits<float>::lowest())});
  }

 private:
  const graph::Graph& g_;
  TorchStyleModel m_;
  int64_t n_, s_, hidden_;
};

}  // namespace

absl::StatusOr<::onnx::ModelProto> ExportBert(const graph::Graph& g,
                                              const std::map<std::string, std::string>& metadata) {
  const std::vector<int64_t>& ids_shape = g.type(g.inputs.at(0)).shape;  // [N, S]
  TESSEL_ASSIGN_OR_RETURN(const NDArray word,
                          ConstantNamed(g, "embeddings.word_embeddings.weight"));
  const int64_t hidden = word.shape()[1];
  BertWriter w(g, ids_shape[0], ids_shape[1], hidden);
  TorchStyleModel& m = w.model();
  const std::string ids = m.Input("input_ids", ids_shape, ::onnx::TensorProto::INT64);
  const std::string mask_ids = m.Input("attention_mask", ids_shape, ::onnx::TensorProto::INT64);
  TESSEL_ASSIGN_OR_RETURN(std::string x, w.Embeddings(ids));
  const std::string mask = w.Mask(mask_ids);
  for (int layer = 0;; ++layer) {
    const std::string p = absl::StrCat("encoder.layer.", layer);
    if (!ConstantNamed(g, p + ".attention.self.query.weight").ok()) break;
    TESSEL_ASSIGN_OR_RETURN(x, w.Layer(p, x, mask));
  }
  m.Output(x, "last_hidden_state", {ids_shape[0], ids_shape[1], hidden});
  return std::move(m).Finish(metadata);
}

}  // namespace tessel::workloads::exported::internal
