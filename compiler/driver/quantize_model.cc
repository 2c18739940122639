#include "compiler/driver/quantize_model.h"

#include <absl/strings/str_cat.h>

#include <algorithm>
#include <cmath>

#include "baselines/torch/graph_reference.h"
#include "compiler/driver/optimize_graph.h"
#include "compiler/graph/passes/quantize_convs.h"
#include "compiler/ops/strategy.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"

namespace tessel::driver {
namespace {

// Why the accelerator does not compute convolution `conv` as conv2d_int8, or "" when it does.
std::string WhyNot(const graph::Graph& g, const graph::Node& conv,
                   const target::TargetFacts& facts) {
  absl::StatusOr<nlohmann::json> args = graph::OpArgsOf(g, conv);
  if (!args.ok()) return std::string(args.status().message());
  (*args)["shift"] = 0;
  absl::StatusOr<const ops::Template*> t = ops::SelectTemplate("conv2d_int8", *args, facts);
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
  for (const graph::Node& n : optimized.nodes) {
    if (n.op != "conv2d") continue;
    ++out.convolutions;
    if (const std::string why = WhyNot(optimized, n, facts); !why.empty()) {
      out.kept_float.push_back(absl::StrCat(n.name, ": ", why));
    }
  }
  const graph::passes::QuantizeConvsOptions options{
      .eligible = [&facts](const graph::Graph& og, const graph::Node& conv) {
        return WhyNot(og, conv, facts).empty();
      }};
  TESSEL_ASSIGN_OR_RETURN(out.graph, graph::passes::QuantizeConvs(optimized, max_abs, options));
  out.quantized = graph::passes::CountInt8Convs(out.graph);
  return out;
}

}  // namespace tessel::driver
