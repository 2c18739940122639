#include "compiler/graph/op_registry.h"

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/synchronization/mutex.h>

#include <map>
#include <optional>

#include "compiler/graph/node_layout.h"
#include "compiler/graph/op_defs.h"
#include "compiler/ops/logical_op.h"
#include "compiler/support/check.h"
#include "compiler/support/status_macros.h"

namespace tessel::graph {
namespace {

const std::map<std::string, OpDef>& Registry() {
  static const auto* const registry = [] {
    auto* ops = new std::map<std::string, OpDef>;
    for (OpDef& def : AllOpDefs()) {
      std::string name = def.name;
      ops->emplace(std::move(name), std::move(def));
    }
    return ops;
  }();
  return *registry;
}

// A network repeats the same operator and arguments many times, and passes infer the types of
// every node again after each rewrite.
class TypeCache {
 public:
  std::optional<std::vector<TensorType>> Find(const std::string& key) {
    absl::MutexLock lock(&mu_);
    auto it = types_.find(key);
    if (it == types_.end()) return std::nullopt;
    return it->second;
  }
  void Put(const std::string& key, const std::vector<TensorType>& types) {
    absl::MutexLock lock(&mu_);
    types_.emplace(key, types);
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::vector<TensorType>> types_;
};

}  // namespace

const char* OpPatternName(OpPattern p) {
  switch (p) {
    case OpPattern::kElemWise:
      return "elemwise";
    case OpPattern::kBroadcast:
      return "broadcast";
    case OpPattern::kInjective:
      return "injective";
    case OpPattern::kCommReduce:
      return "reduce";
    case OpPattern::kOutEWiseFusable:
      return "out_elemwise_fusable";
    case OpPattern::kOpaque:
      return "opaque";
  }
  return "?";
}

absl::StatusOr<const OpDef*> FindOpDef(const std::string& name) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    return absl::NotFoundError(absl::StrCat("unknown graph operator '", name,
                                            "' (known: ", absl::StrJoin(OpDefNames(), ", "), ")"));
  }
  return &it->second;
}

std::vector<std::string> OpDefNames() {
  std::vector<std::string> names;
  for (const auto& [name, def] : Registry()) names.push_back(name);
  return names;
}

// The output types of op on the node's logical view (its layout left aside), cached.
static absl::StatusOr<std::vector<TensorType>> InferLogicalTypes(const OpDef& op,
                                                                 const LogicalView& view);

absl::StatusOr<std::vector<TensorType>> InferTypes(const OpDef& op,
                                                   const std::vector<TensorType>& inputs,
                                                   const nlohmann::json& attrs) {
  const int n = static_cast<int>(inputs.size());
  if (n < op.min_inputs || (op.max_inputs >= 0 && n > op.max_inputs)) {
    std::string expected = op.max_inputs < 0 ? absl::StrCat("at least ", op.min_inputs)
                           : op.min_inputs == op.max_inputs
                               ? absl::StrCat(op.min_inputs)
                               : absl::StrCat(op.min_inputs, " to ", op.max_inputs);
    return absl::InvalidArgumentError(
        absl::StrCat(op.name, " takes ", expected, " inputs, got ", n));
  }
  if (!attrs.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op.name, ": attributes must be a JSON object, got ", attrs.dump()));
  }
  TESSEL_ASSIGN_OR_RETURN(LogicalView view, LogicalViewOf(op.name, op.blocked_data, inputs, attrs));
  TESSEL_ASSIGN_OR_RETURN(std::vector<TensorType> outputs, InferLogicalTypes(op, view));
  if (view.layout.out_block > 0) {
    absl::StatusOr<TensorType> blocked = BlockedType(outputs[0], view.layout.out_block);
    if (!blocked.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(op.name, ": attribute '", kOutLayoutAttr,
                                                     "': ", blocked.status().message()));
    }
    outputs[0] = *blocked;
  }
  return outputs;
}

absl::StatusOr<std::vector<TensorType>> InferLogicalTypes(const OpDef& op,
                                                          const LogicalView& view) {
  const std::vector<TensorType>& inputs = view.inputs;
  TESSEL_ASSIGN_OR_RETURN(nlohmann::json args, op.op_args(inputs, view.attrs));

  static TypeCache* const cache = new TypeCache;
  std::string key = absl::StrCat(op.name, "|", args.dump());
  for (const TensorType& t : inputs) absl::StrAppend(&key, "|", t.ToString());
  if (std::optional<std::vector<TensorType>> hit = cache->Find(key)) return *hit;

  TESSEL_ASSIGN_OR_RETURN(ops::LogicalSignature sig, ops::LogicalSignatureOf(op.name, args));
  // The operator's logical inputs must be what the node is given.
  if (sig.inputs.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(op.name, " with these arguments takes ",
                                                   sig.inputs.size(), " inputs, got ",
                                                   inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorType want{sig.inputs[i].shape, sig.inputs[i].dtype};
    if (want != inputs[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(op.name, ": input ", i, " ('", sig.inputs[i].name, "') must be ",
                       want.ToString(), ", got ", inputs[i].ToString()));
    }
  }
  std::vector<TensorType> outputs;
  for (const ops::TensorSpec& s : sig.outputs) outputs.push_back({s.shape, s.dtype});
  TESSEL_CHECK(static_cast<int>(outputs.size()) == op.num_outputs)
      << op.name << " declares " << op.num_outputs << " outputs, its logical signature gives "
      << outputs.size();
  cache->Put(key, outputs);
  return outputs;
}

}  // namespace tessel::graph
