#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <string>

#include "compiler/runtime/ndarray.h"

// Tensors in NumPy's .npy format (numpy.save / numpy.load), versions 1.0, 2.0 and 3.0 (3.0 is
// 2.0 with a UTF-8 header).
//
// Element types: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1, which are float16/32/64,
// int8-64, uint8-64 and DLPack bool (dltype.h). Reading also accepts '=' for '<' and any
// byte-order mark on one-byte types; big-endian data ('>f4') and every other dtype (complex,
// strings, objects, structured) are refused.
//
// Every error is one line that starts with the file's path and says what is wrong.
namespace tessel::runtime {

// Reads a .npy file into a fresh compact NDArray. A fortran_order array is converted to C
// order (a copy). Errors: the file cannot be opened or read (the system's reason), bad magic,
// an unsupported format version, a truncated preamble or header, a header that is not the
// dict .npy requires (naming the missing, unexpected or malformed key), an unsupported dtype,
// and data whose size differs from what shape and dtype need (truncated or trailing bytes).
absl::StatusOr<NDArray> LoadNpy(const std::string& path);

// Writes `array` as a C-order .npy file: version 1.0, or 2.0 when the header does not fit 1.0's
// 16-bit length. A non-contiguous array is written as its logical row-major content. The file
// is written under a temporary name in the same folder and renamed over `path` only when
// complete, so a failure leaves `path` as it was and no temporary behind. Errors: a null
// array, a dtype .npy cannot hold (vectors, bfloat16, sub-byte types), and the system's
// reason when the temporary cannot be created, written or renamed.
absl::Status SaveNpy(const std::string& path, const NDArray& array);

}  // namespace tessel::runtime
