// The injective templates for GPUs, "<op>.gpu" for every operator of ops/injective/builders.h
// (activations, broadcasting binary operators, data movement, take, batch_norm): the builder's
// output scheduled by injective_schedule.h (knobs threads, per_thread, vector), everything else
// inline, one kernel. The element-wise ones take an output tail (a fusion group without a
// master, led by its first element-wise node: driver/kernel_groups.h).
#include <absl/strings/str_cat.h>

#include "compiler/ops/cuda/injective_schedule.h"
#include "compiler/ops/injective/builders.h"

namespace tessel::ops::cuda {
namespace {

bool RegisterAll() {
  for (const injective::InjectiveOperator& o : injective::InjectiveOperators()) {
    RegisterTemplate("gpu", MakeGpuInjectiveTemplate(
                                o.op + ".gpu", o.op,
                                absl::StrCat(o.op,
                                             " on GPUs: output axes fused over blocks x threads, "
                                             "1, 2 or 4 elements per thread (a loop or a vector)"),
                                o.build, o.build_with_tail));
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace tessel::ops::cuda
