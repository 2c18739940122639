#pragma once

#include <absl/status/statusor.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// The header of a .npy file: the Python dict literal after the preamble, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Private to npy.cc; errors here say what is wrong, npy.cc adds the file.
namespace tessel::runtime::npy {

struct Header {
  std::string descr;  // as written, for messages
  DLDataType dtype;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Parses the dict text (padding and the final newline included). It must be a dict with
// exactly the keys 'descr' (a supported dtype string), 'fortran_order' (True or False) and
// 'shape' (a tuple of non-negative integers). Supported dtypes: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1
// <u2 <u4 <u8 |b1, where '=' (native, little-endian here) may replace '<', and one-byte types
// take any byte-order mark. Big-endian multi-byte dtypes are refused.
absl::StatusOr<Header> ParseHeader(std::string_view text);

// The .npy descr of `dtype`, or InvalidArgument when .npy has no such type (vectors, sub-byte
// and bfloat types).
absl::StatusOr<std::string> DescrOf(DLDataType dtype);

// The dict text for a C-order array, without padding or newline.
std::string FormatHeader(const std::string& descr, const std::vector<int64_t>& shape);

// A shape as Python prints a tuple: "()", "(3,)", "(2, 3)".
std::string ShapeToPython(const std::vector<int64_t>& shape);

}  // namespace tessel::runtime::npy
