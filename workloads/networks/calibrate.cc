#include "workloads/networks/calibrate.h"

#include <absl/strings/str_cat.h>

#include "baselines/torch/reference.h"
#include "compiler/support/status_macros.h"

namespace tessel::workloads::networks {
namespace {

using runtime::NDArray;

// Per-channel mean and population variance of an NCHW float32 array, accumulated in double.
void ChannelStatistics(const NDArray& x, NDArray& mean, NDArray& var) {
  const std::vector<int64_t>& s = x.shape();
  const int64_t n = s[0], c = s[1], plane = s[2] * s[3];
  const float* p = x.data<float>();
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0, sum_sq = 0;
    for (int64_t b = 0; b < n; ++b) {
      const float* row = p + (b * c + ch) * plane;
      for (int64_t i = 0; i < plane; ++i) {
        sum += row[i];
        sum_sq += static_cast<double>(row[i]) * row[i];
      }
    }
    const double count = static_cast<double>(n * plane);
    const double m = sum / count;
    mean.data<float>()[ch] = static_cast<float>(m);
    var.data<float>()[ch] = static_cast<float>(std::max(0.0, sum_sq / count - m * m));
  }
}

}  // namespace

absl::Status CalibrateBatchNorm(graph::Graph& g, const std::vector<NDArray>& inputs) {
  if (inputs.size() != g.inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph takes ", g.inputs.size(), " inputs, got ", inputs.size()));
  }
  const std::vector<std::vector<int>> consumers = g.Consumers();
  std::vector<NDArray> env(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) env[static_cast<size_t>(g.inputs[i])] = inputs[i];
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == graph::ValueKind::kConstant) env[i] = g.values[i].data;
  }
  for (const graph::Node& node : g.nodes) {
    if (node.op == "batch_norm") {
      for (int k : {3, 4}) {
        const graph::ValueId id = node.inputs[static_cast<size_t>(k)];
        const graph::Value& v = g.value(id);
        if (v.kind != graph::ValueKind::kConstant ||
            consumers[static_cast<size_t>(id)].size() != 1) {
          return absl::InvalidArgumentError(
              absl::StrCat("batch_norm '", node.name, "': '", v.name,
                           "' must be a constant only it reads, to take calibrated statistics"));
        }
      }
      const NDArray& x = env[static_cast<size_t>(node.inputs[0])];
      const int64_t c = x.shape()[1];
      NDArray mean = NDArray::Empty({c}, x.dtype()), var = NDArray::Empty({c}, x.dtype());
      ChannelStatistics(x, mean, var);
      for (const auto& [k, a] : {std::pair{3, mean}, std::pair{4, var}}) {
        const size_t id = static_cast<size_t>(node.inputs[static_cast<size_t>(k)]);
        g.values[id].data = a;
        env[id] = a;
      }
    }
    TESSEL_ASSIGN_OR_RETURN(const nlohmann::json args, graph::OpArgsOf(g, node));
    std::vector<NDArray> in;
    for (graph::ValueId id : node.inputs) in.push_back(env[static_cast<size_t>(id)]);
    absl::StatusOr<std::vector<NDArray>> out = baselines::TorchReference(node.op, args, in);
    if (!out.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name, "' (", node.op, "): ", out.status().message()));
    }
    for (size_t o = 0; o < out->size() && o < node.outputs.size(); ++o) {
      env[static_cast<size_t>(node.outputs[o])] = (*out)[o];
    }
  }
  return absl::OkStatus();
}

}  // namespace tessel::workloads::networks
