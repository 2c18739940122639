#include "compiler/graph/passes/fold_constants.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include <string>
#include <vector>

#include "compiler/graph/op_registry.h"
#include "compiler/graph/passes/rewriter.h"
#include "compiler/ops/op_runner.h"
#include "compiler/ops/strategy.h"
#include "compiler/ops/template.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"
#include "compiler/target/target_facts.h"

namespace tessel::graph::passes {
namespace {

// The facts of this machine's `llvm` target, where folding runs; computed once.
const target::TargetFacts& HostFacts() {
  static const auto* const facts = [] {
    absl::StatusOr<target::TargetFacts> f = target::DescribeTarget(target::Target::Llvm());
    TESSEL_CHECK(f.ok()) << f.status().message();
    return new target::TargetFacts(*f);
  }();
  return *facts;
}

// Runs nodes on the host with the operator library's untuned programs. A network repeats the
// same operator with the same arguments (a reshape per layer, say): each is compiled once.
class NodeEvaluator {
 public:
  absl::StatusOr<std::vector<runtime::NDArray>> Run(const Graph& g, const Node& node,
                                                    const std::vector<runtime::NDArray>& inputs) {
    absl::StatusOr<std::vector<runtime::NDArray>> out = RunProgram(g, node, inputs);
    if (!out.ok()) {
      return absl::InternalError(
          absl::StrCat("folding node '", node.name, "' (", node.op, "): ", out.status().message()));
    }
    return out;
  }

 private:
  struct Compiled {
    ops::OpProgram program;
    runtime::Function function;
  };

  absl::StatusOr<std::vector<runtime::NDArray>> RunProgram(
      const Graph& g, const Node& node, const std::vector<runtime::NDArray>& inputs) {
    TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, OpArgsOf(g, node));
    const std::string key = absl::StrCat(node.op, "|", args.dump());
    auto it = compiled_.find(key);
    if (it == compiled_.end()) {
      const target::TargetFacts& facts = HostFacts();
      TESSEL_ASSIGN_OR_RETURN(const ops::Template* t, ops::SelectTemplate(node.op, args, facts));
      TESSEL_ASSIGN_OR_RETURN(ops::Instantiated inst, ops::InstantiateFallback(*t, args, facts));
      const std::string name = absl::StrCat("tessel_fold_", compiled_.size());
      TESSEL_ASSIGN_OR_RETURN(runtime::Function f,
                              ops::CompileProgram(inst.program, name, facts.target));
      it = compiled_.emplace(key, Compiled{std::move(inst.program), std::move(f)}).first;
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> out,
                            ops::RunLogical(it->second.program, it->second.function, inputs));
    for (runtime::NDArray& a : out) {
      if (a.IsContiguous()) continue;
      runtime::NDArray compact = runtime::NDArray::Empty(a.shape(), a.dtype());
      TESSEL_RETURN_IF_ERROR(compact.CopyFrom(a));
      a = compact;
    }
    return out;
  }

  absl::flat_hash_map<std::string, Compiled> compiled_;
};

}  // namespace

absl::StatusOr<Graph> FoldConstants(const Graph& g, const FoldConstantsOptions& options) {
  if (options.max_output_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FoldConstantsOptions.max_output_bytes must be >= 0, got ", options.max_output_bytes));
  }
  // The data of every value known to be constant so far.
  std::vector<runtime::NDArray> known(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (g.values[i].kind == ValueKind::kConstant) known[i] = g.values[i].data;
  }
  Rewriter r(g);
  NodeEvaluator evaluator;
  for (const Node& node : g.nodes) {
    bool foldable = true;
    std::vector<runtime::NDArray> inputs;
    for (ValueId id : node.inputs) {
      foldable = foldable && known[static_cast<size_t>(id)].defined();
      inputs.push_back(known[static_cast<size_t>(id)]);
    }
    int64_t bytes = 0;
    for (ValueId id : node.outputs) bytes += g.type(id).NumBytes();
    if (!foldable || bytes > options.max_output_bytes) {
      r.Copy(node);
      continue;
    }
    TESSEL_ASSIGN_OR_RETURN(std::vector<runtime::NDArray> outputs, evaluator.Run(g, node, inputs));
    TESSEL_CHECK(outputs.size() == node.outputs.size())
        << "folding " << node.name << " gave " << outputs.size() << " outputs";
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const ValueId id = node.outputs[o];
      known[static_cast<size_t>(id)] = outputs[o];
      r.BindConstant(id, outputs[o]);
    }
  }
  return r.Finish();
}

}  // namespace tessel::graph::passes
