#pragma once

#include <absl/status/statusor.h>

#include <functional>
#include <string>
#include <vector>

#include "compiler/ops/op_args.h"
#include "compiler/ops/template.h"
#include "compiler/target/target_facts.h"

// Strategies: which template computes an operator on a target when nothing was tuned (TVM's op
// strategy). One strategy per target key (target.h's keys: cpu, arm_cpu, cuda, gpu, mali, vdla);
// a target is served by the strategy of its most specific key that has one, so an arm_cpu target
// uses the cpu strategy until an arm_cpu one is registered. A strategy chooses among the templates
// registered for its key (template.h RegisterTemplate). The x86 strategy (ops/x86/strategy.cc)
// serves `cpu`.
namespace tessel::ops {

// The name of the template for op with args on facts.target, or an error: the args the strategy
// cannot read (naming the key), an operator it has no template for. NotFound defers: the
// operator goes to the strategy of the target's next key that has one (a `mali` strategy
// choosing its own templates for some operators and leaving the rest to `gpu`'s).
using Strategy = std::function<absl::StatusOr<std::string>(
    const std::string& op, const OpArgs& args, const target::TargetFacts& facts)>;

// Registers the strategy of a target key; returns true so that a template library can register
// from a static initializer. A key registered twice is an internal error.
bool RegisterStrategy(const std::string& key, Strategy strategy);

// The target keys with a strategy in this build, sorted.
std::vector<std::string> StrategyKeys();

// The template computing op with args on facts.target, by the strategy of the target's most
// specific key that has one and does not defer. Errors (Unimplemented) name the operator and the
// target: no strategy for any of the target's keys (listing the keys that have one), or every
// strategy of its keys deferred; the strategy's own error for args it cannot read or an operator
// it has no template for.
absl::StatusOr<const Template*> SelectTemplate(const std::string& op, const OpArgs& args,
                                               const target::TargetFacts& facts);

// The templates registered for key whose operator is op, by name (what a strategy chooses from).
std::vector<const Template*> TemplatesFor(const std::string& key, const std::string& op);

}  // namespace tessel::ops
