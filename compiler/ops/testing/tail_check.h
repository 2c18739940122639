#pragma once

#include <absl/status/status.h>

#include "compiler/ops/testing/op_check.h"

// Checks Template::instantiate_with_tail against libtorch: the template's program with a test tail
//   out'[l] = max(out[l] + bias[l[1]], 0) + residual[l]      (l: the logical output index)
// fused in, against TorchReference's output with the same tail applied on the host. The tail
// covers what fusion puts there: a per-channel broadcast, an activation, and a full-size input
// read at logical indices (a residual). It is a BroadcastingTail (bias [C, 1, ...]), so
// templates that take tails over views are checked too.
namespace tessel::ops::testing {

absl::Status CheckTailConfig(const Template& t, const OpArgs& args, const search::Config& config,
                             const CheckOptions& options = {});
// The fallback and n distinct random configs.
absl::Status CheckTailRandomConfigs(const Template& t, const OpArgs& args, int n,
                                    const CheckOptions& options = {});

}  // namespace tessel::ops::testing
