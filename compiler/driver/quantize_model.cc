#include "compiler/driver/quantize_model.h"

#include <absl/container/flat_hash_set.h>
#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/optimize_graph.h"
#include "compiler/graph/passes/quantize_layers.h"
#include "compiler/ops/strategy.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"

namespace tessel::driver {
namespace {

// Why the accelerator does not compute `layer` (conv2d or dense) as its int8 operator, or "" when
// it does.
std::string WhyNot(const graph::Graph& g, const graph::Node& layer,
                   const target::TargetFacts& facts) {
  absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(g, layer);
  if (!args.ok()) return std::string(args.status().message());
  args->erase("bias");  // dense's: the int8 layer's bias comes with its shift
  (*args)["shift"] = 0;
  const std::string op = graph::passes::Int8OpOf(layer.op);
  absl::StatusOr<const ops::Template*> t = ops::SelectTemplate(op, *args, facts);
  if (!t.ok()) return std::string(t.status().message());
  const absl::Status s = (*t)->space(*args, facts).status();
  return s.ok() ? "" : std::string(s.message());
}

void Widen(const runtime::NDArray& a, double& max_abs) {
  if (!a.defined() || a.dtype().code != kDLFloat || a.dtype().bits != 32) return;
  const float* p = a.data<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    max_abs = std::max(max_abs, std::abs(static_cast<double>(p[i])));
  }
}

}  // namespace

absl::StatusOr<QuantizedModel> QuantizeForAccelerator(
    const graph::Graph& g, const target::Target& accelerator,
    const std::vector<std::vector<runtime::NDArray>>& calibration) {
  if (calibration.empty()) {
    return absl::InvalidArgumentError("quantization needs at least one calibration input");
  }
  TESSEL_ASSIGN_OR_RETURN(const target::TargetFacts facts, target::DescribeTarget(accelerator));
  QuantizedModel out;
  TESSEL_ASSIGN_OR_RETURN(const graph::Graph optimized, OptimizeGraph(g));
  std::vector<double> max_abs(optimized.values.size(), 0);
  for (size_t k = 0; k < calibration.size(); ++k) {
    absl::StatusOr<std::vector<runtime::NDArray>> values =
        baselines::EvaluateReferenceValues(optimized, calibration[k]);
    if (!values.ok()) {
      return absl::Status(values.status().code(),
                          absl::StrCat("calibration input ", k, ": ", values.status().message()));
    }
    for (size_t v = 0; v < values->size(); ++v) Widen((*values)[v], max_abs[v]);
  }
  absl::flat_hash_set<std::string> eligible;
  for (const graph::Node& n : optimized.nodes) {
    if (graph::passes::Int8OpOf(n.op).empty()) continue;
    ++out.layers;
    if (const std::string why = WhyNot(optimized, n, facts); !why.empty()) {
      out.kept_float.push_back(absl::StrCat(n.name, ": ", why));
    } else {
      eligible.insert(n.name);
    }
  }
  const graph::passes::QuantizeLayersOptions options{
      .eligible = [&eligible](const graph::Graph&, const graph::Node& layer) {
        return eligible.contains(layer.name);
      }};
  TESSEL_ASSIGN_OR_RETURN(out.graph, graph::passes::QuantizeLayers(optimized, max_abs, options));
  out.quantized = graph::passes::CountInt8Layers(out.graph);
  return out;
}

std::vector<bool> LayerSteps(const CompiledModel& m) {
  std::vector<bool> layer;
  for (const CompiledStep& s : m.steps) {
    layer.push_back(
        graph::passes::IsQuantizableLayer(m.graph.nodes[static_cast<size_t>(s.master)].op));
  }
  return layer;
}

}  // namespace tessel::driver
