// Data-movement templates: concatenate, reshape, flatten, transpose, pad, layout_transform,
// cast, an element type conversion, and quantize and dequantize, to and from int8 ("<op>.x86").
// Each is one injective output (ops/injective/builders.h) scheduled by injective_schedule.h (knobs
// inner_axes, vec, unroll, parallel); the inner axes are limited to those along which every input
// is read contiguously. reshape, flatten, cast, quantize and dequantize work on one flat row,
// concatenate joins [before, axis, after] views (prepare and finish reshape; free for a graph
// compiler). Flops: 0 (they only move data; GB/s is their measure).
#include "compiler/ops/injective/builders.h"
#include "compiler/ops/x86/injective_schedule.h"

namespace tessel::ops::x86 {
namespace {

TESSEL_REGISTER_TEMPLATE("cpu",
                         MakeInjectiveTemplate("concatenate.x86", "concatenate",
                                               "inputs joined along an axis, vectorized rows",
                                               injective::BuildConcatenate));
TESSEL_REGISTER_TEMPLATE("cpu", MakeInjectiveTemplate("reshape.x86", "reshape",
                                                      "row-major reshape as a vectorized copy",
                                                      injective::BuildReshape));
TESSEL_REGISTER_TEMPLATE("cpu",
                         MakeInjectiveTemplate("flatten.x86", "flatten",
                                               "flatten to two dimensions as a vectorized copy",
                                               injective::BuildFlatten));
TESSEL_REGISTER_TEMPLATE(
    "cpu", MakeInjectiveTemplate("transpose.x86", "transpose",
                                 "axis permutation, vectorized over the output's last axes",
                                 injective::BuildTranspose));
TESSEL_REGISTER_TEMPLATE("cpu", MakeInjectiveTemplate("pad.x86", "pad",
                                                      "constant padding, vectorized unpadded rows",
                                                      injective::BuildPad));
TESSEL_REGISTER_TEMPLATE(
    "cpu", MakeInjectiveTemplate(
               "layout_transform.x86", "layout_transform",
               "between layouts such as NCHW and NCHW16c, vectorized over the innermost axis",
               injective::BuildLayoutTransform));
TESSEL_REGISTER_TEMPLATE(
    "cpu", MakeInjectiveTemplate("cast.x86", "cast",
                                 "element type conversion (float32, float64, int32, int64) as a "
                                 "vectorized row",
                                 injective::BuildCast));
TESSEL_REGISTER_TEMPLATE("cpu", MakeInjectiveTemplate("quantize.x86", "quantize",
                                                      "float32 to symmetric int8 with one scale, "
                                                      "as a vectorized row",
                                                      injective::BuildQuantize));
TESSEL_REGISTER_TEMPLATE("cpu", MakeInjectiveTemplate("dequantize.x86", "dequantize",
                                                      "int8 to float32 with one scale, as a "
                                                      "vectorized row",
                                                      injective::BuildDequantize));

}  // namespace
}  // namespace tessel::ops::x86
