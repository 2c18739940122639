// batch_norm.x86: inference batch normalization of NCHW data (ops/injective/builders.h). The
// per-channel statistics fold into a scale and a shift (two [C] stages computed once,
// vectorized); the output is one multiply-add per element, scheduled by injective_schedule.h
// over rows of H * W (the data viewed as [N, C, H * W]; knobs inner_axes, vec, unroll,
// parallel). Flops: 2 per output element (the fold is not counted).
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/x86/injective_schedule.h"

namespace tessel::ops::x86 {
namespace {

TESSEL_REGISTER_TEMPLATE(
    "cpu",
    MakeInjectiveTemplate("batch_norm.x86", "batch_norm",
                          "inference batch norm folded to a per-channel multiply-add, vectorized",
                          injective::BuildBatchNorm));

}  // namespace
}  // namespace tessel::ops::x86
