// take.x86: a gather of float32 rows by int32 or int64 indices (compiler/ops/nn/take.h), one
// injective output (ops/injective/builders.h) scheduled by injective_schedule.h (knobs inner_axes,
// vec, unroll, parallel). The program works on views: data as [outer, n, inner] (the axes before
// and after the gathered one merged, dropped when of extent 1), the indices as one row [m], the
// output as [outer, m, inner] (prepare and finish reshape; free for a graph compiler). Each
// output row of `inner` elements is a contiguous copy of one data row, so only that axis is
// vectorized; with inner = 1 (a gather along the last axis) the inner loop runs over the indices
// and the loads are gathers. Flops: 0 (data movement).
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/x86/injective_schedule.h"

namespace tessel::ops::x86 {
namespace {

TESSEL_REGISTER_TEMPLATE(
    "cpu", MakeInjectiveTemplate(
               "take.x86", "take",
               "gather along an axis by int32 or int64 indices (clamped), vectorized rows",
               injective::BuildTake));

}  // namespace
}  // namespace tessel::ops::x86
