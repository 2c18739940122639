// Each graph operator of the networks as the torch module that computes it is exported: conv2d
// (with the "<conv>.bias_add" that follows it) as torch.nn.Conv2d, batch_norm as BatchNorm2d in
// eval mode, dense as Linear, and so on (exported.h).
#include "workloads/exported/export_graph.h"

#include <absl/strings/str_cat.h>

#include <cstring>
#include <map>
#include <set>

#include "compiler/graph/onnx/proto_builder.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "workloads/exported/torch_style.h"

namespace tessel::workloads::exported::internal {
namespace {

using graph::Node;
using graph::ValueId;
using runtime::NDArray;

// A copy of `a` with another shape of the same element count.
NDArray Reshaped(const NDArray& a, const std::vector<int64_t>& shape) {
  NDArray out = NDArray::Empty(shape, a.dtype());
  std::memcpy(out.data<char>(), a.data<char>(), static_cast<size_t>(a.NumBytes()));
  return out;
}

std::vector<int64_t> Ints(const nlohmann::json& attrs, const char* key,
                          std::vector<int64_t> fallback) {
  return attrs.contains(key) ? attrs[key].get<std::vector<int64_t>>() : fallback;
}

class GraphWriter {
 public:
  GraphWriter(const graph::Graph& g, const std::string& name, const GraphExportStyle& style)
      : g_(g), style_(style), m_(name), consumers_(g.Consumers()) {}

  absl::Status Write() {
    if (style_.input_names.size() != g_.inputs.size() ||
        style_.output_names.size() != g_.outputs.size()) {
      return absl::InternalError("export style names the wrong number of inputs or outputs");
    }
    for (size_t i = 0; i < g_.inputs.size(); ++i) {
      const graph::TensorType& t = g_.type(g_.inputs[i]);
      names_[g_.inputs[i]] =
          m_.Input(style_.input_names[i], t.shape, graph::onnx::OnnxElemType(t.dtype));
    }
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      if (absorbed_.count(static_cast<int>(i))) continue;
      TESSEL_RETURN_IF_ERROR(WriteNode(static_cast<int>(i)));
    }
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const graph::TensorType& t = g_.type(g_.outputs[i]);
      m_.Output(Name(g_.outputs[i]), style_.output_names[i], t.shape,
                graph::onnx::OnnxElemType(t.dtype));
    }
    return absl::OkStatus();
  }

  TorchStyleModel& model() { return m_; }

 private:
  // The ONNX name of a value: a parameter's initializer is written at its first use.
  std::string Name(ValueId id) {
    auto it = names_.find(id);
    if (it != names_.end()) return it->second;
    const graph::Value& v = g_.value(id);
    TESSEL_CHECK(v.kind == graph::ValueKind::kConstant) << "value " << v.name << " not yet written";
    return names_[id] = m_.Parameter(v.name, v.data);
  }

  // The one node that reads the output of node `n`, when it is an add of a constant named
  // "<name>.bias" (the graph's conv bias): its index, else -1.
  int BiasAdd(const Node& n) {
    const std::vector<int>& readers = consumers_[static_cast<size_t>(n.outputs[0])];
    if (readers.size() != 1) return -1;
    const Node& add = g_.nodes[static_cast<size_t>(readers[0])];
    if (add.op != "add" || add.inputs[0] != n.outputs[0]) return -1;
    const graph::Value& b = g_.value(add.inputs[1]);
    if (b.kind != graph::ValueKind::kConstant || b.name != n.name + ".bias") return -1;
    return readers[0];
  }

  void Set(const Node& n, const std::string& onnx_name) { names_[n.outputs[0]] = onnx_name; }

  absl::Status WriteNode(int index) {
    const Node& n = g_.nodes[static_cast<size_t>(index)];
    const std::string& s = n.name;
    const nlohmann::json& a = n.attrs;
    auto in = [&](size_t i) { return Name(n.inputs.at(i)); };
    if (n.op == "conv2d" || n.op == "conv2d_transpose") {
      const std::vector<int64_t>& w = g_.type(n.inputs[1]).shape;
      std::vector<std::string> inputs = {in(0), in(1)};
      const int bias_add = BiasAdd(n);
      const Node* last = &n;
      if (bias_add >= 0) {
        const Node& add = g_.nodes[static_cast<size_t>(bias_add)];
        const NDArray& b = g_.value(add.inputs[1]).data;
        inputs.push_back(
            m_.Parameter(g_.value(add.inputs[1]).name, Reshaped(b, {b.NumElements()})));
        absorbed_.insert(bias_add);
        last = &add;
      }
      const bool transposed = n.op == "conv2d_transpose";
      ::onnx::NodeProto& c = m_.Node(s, transposed ? "ConvTranspose" : "Conv", inputs);
      graph::onnx::SetAttr(c, "dilations", Ints(a, "dilation", {1, 1}));
      graph::onnx::SetAttr(c, "group", a.value("groups", int64_t{1}));
      graph::onnx::SetAttr(c, "kernel_shape", std::vector<int64_t>{w[2], w[3]});
      if (transposed) {
        const std::vector<int64_t> op = Ints(a, "output_padding", {0, 0});
        if (op != std::vector<int64_t>{0, 0}) graph::onnx::SetAttr(c, "output_padding", op);
      }
      graph::onnx::SetAttr(c, "pads", Ints(a, "pad", {0, 0, 0, 0}));
      graph::onnx::SetAttr(c, "strides", Ints(a, "stride", {1, 1}));
      Set(*last, c.output(0));
      return absl::OkStatus();
    }
    if (n.op == "batch_norm") {
      ::onnx::NodeProto& bn = m_.Node(s, "BatchNormalization", {in(0), in(1), in(2), in(3), in(4)});
      graph::onnx::SetAttr(bn, "epsilon", static_cast<float>(a.value("epsilon", 1e-5)));
      graph::onnx::SetAttr(bn, "momentum", 0.9f);
      Set(n, bn.output(0));
      return absl::OkStatus();
    }
    if (n.op == "relu" || n.op == "tanh" || n.op == "sigmoid") {
      const char* op = n.op == "relu" ? "Relu" : n.op == "tanh" ? "Tanh" : "Sigmoid";
      Set(n, m_.Op(s, op, {in(0)}));
      return absl::OkStatus();
    }
    if (n.op == "clip") {
      // torch.clamp / ReLU6: the bounds are inputs, each a Constant.
      const std::string lo = m_.FloatScalar(s, a.at("min").get<float>());
      const std::string hi = m_.FloatScalar(s, a.at("max").get<float>());
      Set(n, m_.Op(s, "Clip", {in(0), lo, hi}));
      return absl::OkStatus();
    }
    if (n.op == "add") {
      Set(n, m_.Op(s, "Add", {in(0), in(1)}));
      return absl::OkStatus();
    }
    if (n.op == "max_pool2d" || n.op == "avg_pool2d") {
      const bool max = n.op == "max_pool2d";
      ::onnx::NodeProto& p = m_.Node(s, max ? "MaxPool" : "AveragePool", {in(0)});
      graph::onnx::SetAttr(p, "ceil_mode", int64_t{a.value("ceil_mode", false) ? 1 : 0});
      if (!max) {
        graph::onnx::SetAttr(p, "count_include_pad",
                             int64_t{a.value("count_include_pad", true) ? 1 : 0});
      }
      graph::onnx::SetAttr(
          p, "kernel_shape",
          std::vector<int64_t>{a.at("kh").get<int64_t>(), a.at("kw").get<int64_t>()});
      graph::onnx::SetAttr(p, "pads", Ints(a, "pad", {0, 0, 0, 0}));
      graph::onnx::SetAttr(p, "strides", Ints(a, "stride", {1, 1}));
      Set(n, p.output(0));
      return absl::OkStatus();
    }
    if (n.op == "global_avg_pool2d") {
      Set(n, m_.Op(s, "GlobalAveragePool", {in(0)}));
      return absl::OkStatus();
    }
    if (n.op == "flatten") {
      const int64_t axis = a.value("axis", int64_t{1});
      if (style_.view_flatten && axis == 1) {
        // x.view(x.size(0), -1), traced: the batch extent read from the tensor's shape.
        const std::string shape = m_.Op(s, "Shape", {in(0)});
        ::onnx::NodeProto& gather = m_.Node(s, "Gather", {shape, m_.Int64Scalar(s, 0)});
        graph::onnx::SetAttr(gather, "axis", int64_t{0});
        const std::string batch = m_.Op(s, "Unsqueeze", {gather.output(0), m_.Int64s(s, {0})});
        ::onnx::NodeProto& cat = m_.Node(s, "Concat", {batch, m_.Int64s(s, {-1})});
        graph::onnx::SetAttr(cat, "axis", int64_t{0});
        Set(n, m_.Op(s, "Reshape", {in(0), cat.output(0)}));
        return absl::OkStatus();
      }
      ::onnx::NodeProto& f = m_.Node(s, "Flatten", {in(0)});
      graph::onnx::SetAttr(f, "axis", axis);
      Set(n, f.output(0));
      return absl::OkStatus();
    }
    if (n.op == "reshape") {
      Set(n, m_.Op(s, "Reshape", {in(0), m_.Int64s(s, g_.type(n.outputs[0]).shape)}));
      return absl::OkStatus();
    }
    if (n.op == "dense") {
      if (n.inputs.size() == 3) {
        Set(n, m_.Linear(s, in(0), in(1), in(2)));
      } else {
        // F.linear without a bias is a matmul; constant folding transposes the weight.
        if (g_.value(n.inputs[1]).kind != graph::ValueKind::kConstant) {
          return absl::UnimplementedError(
              absl::StrCat("the exporter writes dense '", s, "' only with a constant weight"));
        }
        const NDArray w = g_.value(n.inputs[1]).data;
        Set(n, m_.Op(s, "MatMul", {in(0), m_.Folded("MatMul", TransposedMatrix(w))}));
      }
      return absl::OkStatus();
    }
    return absl::UnimplementedError(
        absl::StrCat("the exporter writes no ONNX for operator '", n.op, "' (node '", s, "')"));
  }

  const graph::Graph& g_;
  const GraphExportStyle& style_;
  TorchStyleModel m_;
  std::vector<std::vector<int>> consumers_;
  std::map<ValueId, std::string> names_;
  std::set<int> absorbed_;  // bias adds written as their conv's input
};

}  // namespace

NDArray TransposedMatrix(const NDArray& w) {
  const int64_t n = w.shape()[0], k = w.shape()[1];
  NDArray t = NDArray::Empty({k, n}, w.dtype());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) t.data<float>()[j * n + i] = w.data<float>()[i * k + j];
  }
  return t;
}

absl::StatusOr<NDArray> ConstantNamed(const graph::Graph& g, const std::string& name) {
  for (const graph::Value& v : g.values) {
    if (v.name == name && v.kind == graph::ValueKind::kConstant) return v.data;
  }
  return absl::NotFoundError(absl::StrCat("the graph has no constant '", name, "'"));
}

absl::StatusOr<::onnx::ModelProto> ExportGraph(const graph::Graph& g, const std::string& name,
                                               const GraphExportStyle& style,
                                               const std::map<std::string, std::string>& metadata) {
  GraphWriter w(g, name, style);
  TESSEL_RETURN_IF_ERROR(w.Write());
  return std::move(w.model()).Finish(metadata);
}

}  // namespace tessel::workloads::exported::internal
