#include "compiler/runtime/npy.h"

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/runtime/dltype.h"

namespace tessel::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Files written by numpy 1.24 (np.save, and np.lib.format.write_array for version 2.0).
// np.arange(6, dtype='<f4').reshape(2, 3)
const char kNumpyF32[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \012"
    "\000\000\000\000\000\000\200\077\000\000\000@\000\000@@\000\000\200@\000\000\240@";
// np.asfortranarray(np.arange(6, dtype='<i2').reshape(2, 3))
const char kNumpyFortranI16[] =
    "\223NUMPY\001\000v\000{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }"
    "                                                           \012"
    "\000\000\003\000\001\000\004\000\002\000\005\000";
// np.array([True, False, True])
const char kNumpyBool[] =
    "\223NUMPY\001\000v\000{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }"
    "                                                            \012"
    "\001\000\001";
// np.array([1, 2, 65535], dtype='<u2'), format version 2.0
const char kNumpyV2U16[] =
    "\223NUMPY\002\000t\000\000\000{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }"
    "                                                          \012"
    "\001\000\002\000\377\377";
// np.array(-5, dtype='<i8')
const char kNumpyScalarI64[] =
    "\223NUMPY\001\000v\000{'descr': '<i8', 'fortran_order': False, 'shape': (), }"
    "                                                              \012"
    "\373\377\377\377\377\377\377\377";
// np.array([0.5, -2.0], dtype='<f2')
const char kNumpyF16[] =
    "\223NUMPY\001\000v\000{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }"
    "                                                            \012"
    "\000\070\000\300";

template <size_t N>
std::string Bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

// TempDir() ends with a slash.
std::string TempPath(const std::string& name) { return ::testing::TempDir() + name; }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A .npy file around `header` (the dict text; no padding added) and `data`.
std::string NpyFile(const std::string& header, const std::string& data, int major = 1) {
  std::string file = "\x93NUMPY";
  file.push_back(static_cast<char>(major));
  file.push_back(0);
  const size_t length = header.size() + 1;
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) file.push_back(static_cast<char>(length >> 8 * i));
  return file + header + "\n" + data;
}

absl::StatusOr<NDArray> LoadBytes(const std::string& name, const std::string& bytes) {
  const std::string path = TempPath(name);
  WriteFile(path, bytes);
  return LoadNpy(path);
}

template <class T>
std::vector<T> Values(const NDArray& a) {
  return std::vector<T>(a.data<T>(), a.data<T>() + a.NumElements());
}

TEST(NpyTest, ReadsNumpyFiles) {
  absl::StatusOr<NDArray> f32 = LoadBytes("f32.npy", Bytes(kNumpyF32));
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_EQ(DLTypeToString(f32->dtype()), "float32");
  EXPECT_THAT(f32->shape(), ElementsAre(2, 3));
  EXPECT_THAT(Values<float>(*f32), ElementsAre(0, 1, 2, 3, 4, 5));

  absl::StatusOr<NDArray> fortran = LoadBytes("fortran.npy", Bytes(kNumpyFortranI16));
  ASSERT_TRUE(fortran.ok()) << fortran.status();
  EXPECT_EQ(DLTypeToString(fortran->dtype()), "int16");
  EXPECT_THAT(fortran->shape(), ElementsAre(2, 3));
  EXPECT_TRUE(fortran->IsContiguous());
  EXPECT_THAT(Values<int16_t>(*fortran), ElementsAre(0, 1, 2, 3, 4, 5));

  absl::StatusOr<NDArray> flags = LoadBytes("bool.npy", Bytes(kNumpyBool));
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(DLTypeToString(flags->dtype()), "bool");
  EXPECT_THAT(Values<uint8_t>(*flags), ElementsAre(1, 0, 1));

  absl::StatusOr<NDArray> v2 = LoadBytes("v2.npy", Bytes(kNumpyV2U16));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(DLTypeToString(v2->dtype()), "uint16");
  EXPECT_THAT(Values<uint16_t>(*v2), ElementsAre(1, 2, 65535));

  absl::StatusOr<NDArray> scalar = LoadBytes("scalar.npy", Bytes(kNumpyScalarI64));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape().empty());
  EXPECT_THAT(Values<int64_t>(*scalar), ElementsAre(-5));

  absl::StatusOr<NDArray> f16 = LoadBytes("f16.npy", Bytes(kNumpyF16));
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_EQ(DLTypeToString(f16->dtype()), "float16");
  EXPECT_THAT(Values<uint16_t>(*f16), ElementsAre(0x3800, 0xc000));  // 0.5, -2.0
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  for (const std::string& numpy :
       {Bytes(kNumpyF32), Bytes(kNumpyBool), Bytes(kNumpyScalarI64), Bytes(kNumpyF16)}) {
    absl::StatusOr<NDArray> a = LoadBytes("in.npy", numpy);
    ASSERT_TRUE(a.ok()) << a.status();
    const std::string path = TempPath("out.npy");
    ASSERT_TRUE(SaveNpy(path, *a).ok());
    EXPECT_EQ(ReadFile(path), numpy);
  }
}

TEST(NpyTest, RoundTripsEveryDtype) {
  for (const char* name : {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                           "uint8", "uint16", "uint32", "uint64", "bool"}) {
    const DLDataType dtype = *ParseDLType(name);
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{2, 3}, {}, {5}, {0}, {2, 0, 3}, {1, 2, 1, 3}}) {
      NDArray a = NDArray::Empty(shape, dtype);
      uint8_t* bytes = a.data<uint8_t>();
      for (int64_t i = 0; i < a.NumBytes(); ++i) {
        bytes[i] = name == std::string("bool") ? i % 3 == 0 : static_cast<uint8_t>(i * 37 + 1);
      }
      const std::string path = TempPath(std::string(name) + ".npy");
      ASSERT_TRUE(SaveNpy(path, a).ok()) << name;
      absl::StatusOr<NDArray> b = LoadNpy(path);
      ASSERT_TRUE(b.ok()) << b.status();
      EXPECT_EQ(DLTypeToString(b->dtype()), name);
      EXPECT_EQ(b->shape(), shape) << name;
      ASSERT_EQ(b->NumBytes(), a.NumBytes());
      EXPECT_EQ(std::memcmp(b->data<void>(), a.data<void>(), a.NumBytes()), 0) << name;
      // numpy aligns the data to 64 bytes; so do we.
      EXPECT_EQ((ReadFile(path).size() - a.NumBytes()) % 64, 0u) << name;
    }
  }
}

// A float tensor borrowed through DLPack, for views numpy would call non-contiguous.
struct View {
  std::vector<float> values;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

TEST(NpyTest, SavesAStridedArrayInLogicalOrder) {
  auto* view = new View{{0, 1, 2, 3, 4, 5}, {3, 2}, {1, 3}, {}};
  view->managed.dl_tensor = {view->values.data(), {kDLCPU, 0},          2, {kDLFloat, 32, 1},
                             view->shape.data(),  view->strides.data(), 0};
  view->managed.manager_ctx = view;
  view->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<View*>(self->manager_ctx);
  };
  absl::StatusOr<NDArray> transposed = NDArray::FromDLPack(&view->managed);
  ASSERT_TRUE(transposed.ok()) << transposed.status();
  ASSERT_FALSE(transposed->IsContiguous());
  const std::string path = TempPath("transposed.npy");
  ASSERT_TRUE(SaveNpy(path, *transposed).ok());
  absl::StatusOr<NDArray> loaded = LoadNpy(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->shape(), ElementsAre(3, 2));
  EXPECT_THAT(Values<float>(*loaded), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(NpyTest, HugeHeaderUsesVersion2) {
  NDArray a = NDArray::Empty(std::vector<int64_t>(30000, 1), {kDLInt, 32, 1});
  *a.data<int32_t>() = 42;
  const std::string path = TempPath("many_dims.npy");
  ASSERT_TRUE(SaveNpy(path, a).ok());
  const std::string bytes = ReadFile(path);
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ(bytes[7], 0);
  absl::StatusOr<NDArray> b = LoadNpy(path);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->shape().size(), 30000u);
  EXPECT_EQ(*b->data<int32_t>(), 42);
}

TEST(NpyTest, AcceptsEquivalentSpellings) {
  struct Case {
    std::string header, dtype;
  };
  const Case cases[] = {
      {"{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }", "float32"},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", "uint8"},
      {"{'descr': '<i1', 'fortran_order': False, 'shape': (4,), }", "int8"},
      {"{'descr': '>i1', 'fortran_order': False, 'shape': (4,), }", "int8"},
      {"{'descr': '=b1', 'fortran_order': False, 'shape': (2, 2), }", "bool"},
      {"{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<i2\"}", "int16"},
      {" { 'descr' : '<f2' ,\n'fortran_order' : True , 'shape' : ( 2 , 1 ) } ", "float16"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<NDArray> a = LoadBytes("spelling.npy", NpyFile(c.header, "abcd"));
    ASSERT_TRUE(a.ok()) << c.header << ": " << a.status();
    EXPECT_EQ(DLTypeToString(a->dtype()), c.dtype) << c.header;
    EXPECT_EQ(std::string(a->data<char>(), 4), "abcd");
  }
  absl::StatusOr<NDArray> v3 = LoadBytes(
      "v3.npy", NpyFile("{'descr': '<u2', 'fortran_order': False, 'shape': (2,)}", "abcd", 3));
  ASSERT_TRUE(v3.ok()) << v3.status();
}

TEST(NpyTest, FortranOrderOfThreeDimensions) {
  // Column-major bytes of a 2x2x2 array whose C-order elements are 0..7: index (i, j, k) is at
  // i + 2j + 4k.
  std::string data;
  for (int k = 0; k < 2; ++k) {
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 2; ++i) data.push_back(static_cast<char>(4 * i + 2 * j + k));
    }
  }
  absl::StatusOr<NDArray> a = LoadBytes(
      "fortran3.npy", NpyFile("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 2)}", data));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(Values<uint8_t>(*a), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

// Loads `bytes` from a file and expects an error that names the file and says `what`.
void ExpectLoadError(const std::string& bytes, const std::string& what,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  const std::string path = TempPath("bad.npy");
  WriteFile(path, bytes);
  absl::StatusOr<NDArray> a = LoadNpy(path);
  ASSERT_FALSE(a.ok()) << what;
  EXPECT_EQ(a.status().code(), code) << a.status();
  EXPECT_THAT(std::string(a.status().message()), StartsWith(path + ": "));
  EXPECT_THAT(std::string(a.status().message()), HasSubstr(what));
}

std::string Header(const std::string& descr, const std::string& shape,
                   const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + "}";
}

TEST(NpyTest, FileErrors) {
  const std::string missing = TempPath("missing.npy");
  absl::StatusOr<NDArray> a = LoadNpy(missing);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a.status().message(), missing + ": cannot open: No such file or directory");

  absl::StatusOr<NDArray> dir = LoadNpy(::testing::TempDir());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("not a regular file"));
}

TEST(NpyTest, PreambleErrors) {
  const std::string f4 = Header("<f4", "(1,)");
  ExpectLoadError("", "empty file");
  ExpectLoadError("PK\003\004 a zip file", "not a .npy file (bad magic)");
  ExpectLoadError("\x93NUMPZ\001\000", "bad magic");
  ExpectLoadError("\x93NUM", "truncated: the file ends inside the preamble");
  ExpectLoadError(std::string("\x93NUMPY\001", 7), "truncated: the file ends inside the preamble");
  ExpectLoadError(std::string("\x93NUMPY\001\000\010", 9), "ends inside the header length");
  ExpectLoadError(std::string("\x93NUMPY\002\000\010\000", 10), "ends inside the header length");
  ExpectLoadError(NpyFile(f4, "abcd", 4), "unsupported .npy format version 4.0");
  std::string minor = NpyFile(f4, "abcd");
  minor[7] = 1;
  ExpectLoadError(minor, "unsupported .npy format version 1.1");
  ExpectLoadError(NpyFile(f4, "").substr(0, 30),
                  "truncated header: 56 bytes announced, 20 present");
}

TEST(NpyTest, HeaderErrors) {
  ExpectLoadError(NpyFile("[1, 2]", ""), "header is not a dict: \"[1, 2]\"");
  ExpectLoadError(NpyFile("{'descr': <f4}", ""),
                  "header is not a valid Python literal: unexpected character at offset 10");
  ExpectLoadError(NpyFile("{'descr': '<f4'", ""), "unexpected end");
  ExpectLoadError(NpyFile("{'descr': '<f4} ", ""), "unterminated string");
  ExpectLoadError(NpyFile("{'descr' '<f4'}", ""), "expected ':'");
  ExpectLoadError(NpyFile("{'a': 1} x", ""), "unexpected text after the value");
  ExpectLoadError(NpyFile("{'shape': (99999999999999999999,)}", ""), "integer out of range");
  ExpectLoadError(NpyFile(std::string(100, '(') + std::string(100, ')'), ""), "nesting too deep");
  ExpectLoadError(NpyFile("{'descr': '<f4', 'shape': (1,)}", "abcd"),
                  "header has no 'fortran_order' key");
  ExpectLoadError(NpyFile("{'descr': '<f4', 'fortran_order': False}", "abcd"),
                  "header has no 'shape' key");
  ExpectLoadError(
      NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'order': 'C'}", "abcd"),
      "header has an unexpected key 'order'");
  ExpectLoadError(NpyFile("{1: 2}", ""), "header has a key that is not a string");
  ExpectLoadError(NpyFile(Header("<f4", "(1,)", "0"), "abcd"),
                  "'fortran_order' is not True or False");
  ExpectLoadError(NpyFile(Header("<f4", "[1]"), "abcd"), "'shape' is not a tuple");
  ExpectLoadError(NpyFile(Header("<f4", "(1, 'a')"), "abcd"),
                  "'shape' holds something other than integers");
  ExpectLoadError(NpyFile(Header("<f4", "(2, -1)"), ""), "'shape' (2, -1) has a negative extent");
  ExpectLoadError(
      NpyFile("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,)}", "abcd"),
      "'descr' is not a string (structured dtypes are not supported)");
}

TEST(NpyTest, DtypeErrors) {
  ExpectLoadError(NpyFile(Header(">f4", "(1,)"), "abcd"),
                  "big-endian dtype '>f4' is not supported");
  ExpectLoadError(NpyFile(Header(">i8", "(1,)"), "abcdefgh"),
                  "big-endian dtype '>i8' is not supported");
  for (const char* descr : {"<c8", "<U3", "|O", "|f4", "<f3", "<i3", "|b2", "<M8", "f4", "<f16"}) {
    ExpectLoadError(NpyFile(Header(descr, "(1,)"), "abcd"),
                    std::string("unsupported dtype '") + descr +
                        "' (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1)");
  }
}

TEST(NpyTest, DataSizeErrors) {
  ExpectLoadError(NpyFile(Header("<f4", "(2, 3)"), std::string(20, 'x')),
                  "truncated data: shape (2, 3) of '<f4' needs 24 bytes of data, the file has 20 "
                  "after the header");
  ExpectLoadError(NpyFile(Header("<f4", "(2, 3)"), std::string(28, 'x')),
                  "trailing bytes: shape (2, 3) of '<f4' needs 24 bytes of data, the file has 28 "
                  "after the header");
  ExpectLoadError(NpyFile(Header("<i2", "()"), ""), "truncated data: shape () of '<i2' needs 2");
  ExpectLoadError(NpyFile(Header("<f8", "(4294967296, 4294967296)"), ""),
                  "shape (4294967296, 4294967296) is too large");
}

// The names in `folder`, for checking that no temporary file stays behind.
std::vector<std::string> List(const std::string& folder) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(dir);
  }
  return names;
}

TEST(NpyTest, SaveErrorsNameTheFileAndLeaveNothingBehind) {
  const std::string folder = TempPath("save_errors");
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  const std::string path = folder + "/a.npy";

  absl::Status null = SaveNpy(path, NDArray());
  EXPECT_EQ(null.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(null.message(), path + ": cannot save a null NDArray");

  for (const char* name : {"float32x4", "bfloat16", "uint1", "int4"}) {
    absl::Status dtype = SaveNpy(path, NDArray::Empty({2}, *ParseDLType(name)));
    EXPECT_EQ(dtype.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(dtype.message()),
                StartsWith(path + ": dtype " + name + " has no .npy equivalent (supported:"));
  }

  const std::string nowhere = folder + "/no/such/folder/a.npy";
  absl::Status folder_missing = SaveNpy(nowhere, NDArray::Empty({2}, {kDLFloat, 32, 1}));
  EXPECT_EQ(folder_missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(folder_missing.message()),
              StartsWith(nowhere + ": cannot create '" + nowhere + ".tmp."));
  EXPECT_THAT(std::string(folder_missing.message()), HasSubstr("No such file or directory"));

  // A folder where the file should go: the write succeeds, the rename fails.
  const std::string occupied = folder + "/occupied.npy";
  ASSERT_EQ(mkdir(occupied.c_str(), 0755), 0);
  absl::Status rename = SaveNpy(occupied, NDArray::Empty({2}, {kDLFloat, 32, 1}));
  EXPECT_FALSE(rename.ok());
  EXPECT_THAT(std::string(rename.message()),
              StartsWith(occupied + ": cannot rename '" + occupied + ".tmp."));
  EXPECT_THAT(List(folder), ElementsAre("occupied.npy"));
}

TEST(NpyTest, SaveReplacesAnExistingFile) {
  const std::string path = TempPath("replaced.npy");
  NDArray a = NDArray::Empty({3}, {kDLInt, 8, 1});
  for (int i = 0; i < 3; ++i) a.data<int8_t>()[i] = static_cast<int8_t>(i);
  ASSERT_TRUE(SaveNpy(path, a).ok());
  NDArray b = NDArray::Empty({2, 2}, {kDLFloat, 64, 1});
  for (int i = 0; i < 4; ++i) b.data<double>()[i] = i + 0.25;
  ASSERT_TRUE(SaveNpy(path, b).ok());
  absl::StatusOr<NDArray> loaded = LoadNpy(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->shape(), ElementsAre(2, 2));
  EXPECT_THAT(Values<double>(*loaded), ElementsAre(0.25, 1.25, 2.25, 3.25));
}

}  // namespace
}  // namespace tessel::runtime
