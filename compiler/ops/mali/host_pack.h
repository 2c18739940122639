#pragma once

#include <cstdint>

#include "compiler/runtime/ndarray.h"

// Weight layouts of the Mali templates, made on the host in `prepare` (a network's weights are
// constants, packed once when the model is compiled). Float32, contiguous inputs; the zeros past
// the logical extents let whole vectors be read there.
namespace tessel::ops::mali {

// OIHW [oc, ic, kh, kw] -> [ceil(oc / vc), ic, kh, kw, vc], zero for channels >= oc: vc output
// channels innermost, read as vectors.
runtime::NDArray PackOutputChannels(const runtime::NDArray& oihw, int64_t vc);

// [rows, cols] -> [rows, padded_cols], zero for columns >= cols (padded_cols >= cols).
runtime::NDArray PadColumns(const runtime::NDArray& matrix, int64_t padded_cols);

}  // namespace tessel::ops::mali
