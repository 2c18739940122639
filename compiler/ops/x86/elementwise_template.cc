// Element-wise templates: every operator of one input (nn/unary.h, "<op>.x86") and the
// broadcasting binary operators. Each is one injective output (ops/injective/builders.h)
// scheduled by injective_schedule.h (knobs inner_axes, vec, unroll, parallel) over views of the
// tensors with their mergeable axes merged (prepare and finish reshape; free for a graph
// compiler). Each takes an output tail (instantiate_with_tail): a fusion group without a complex
// master runs as one kernel led by its first node. Flops: one per output element, whatever the
// operator.
#include <absl/strings/str_cat.h>

#include "compiler/ops/injective/builders.h"
#include "compiler/ops/x86/injective_schedule.h"

namespace tessel::ops::x86 {
namespace {

bool RegisterAll() {
  for (const nn::UnaryOp& unary : nn::UnaryOps()) {
    const std::string op = unary.name;
    RegisterTemplate(
        "cpu",
        MakeInjectiveTemplate(op + ".x86", op, absl::StrCat(op, " element-wise, vectorized"),
                              injective::UnaryBuilder(unary), injective::UnaryTailBuilder(unary)));
  }
  for (nn::BinaryOp kind : nn::AllBinaryOps()) {
    const std::string op = nn::BinaryOpName(kind);
    RegisterTemplate("cpu",
                     MakeInjectiveTemplate(
                         op + ".x86", op, absl::StrCat(op, " with numpy broadcasting, vectorized"),
                         injective::BinaryBuilder(kind), injective::BinaryTailBuilder(kind)));
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace tessel::ops::x86
