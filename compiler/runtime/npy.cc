#include "compiler/runtime/npy.h"

#include <absl/strings/str_cat.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "compiler/runtime/dltensor.h"
#include "compiler/runtime/dltype.h"
#include "compiler/runtime/npy_header.h"

namespace tessel::runtime {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Magic, then the major and minor version bytes.
constexpr size_t kPreambleSize = kMagicSize + 2;
// numpy pads the preamble and header to a multiple of this, so the data is aligned.
constexpr size_t kHeaderAlignment = 64;

// The status `status` with "<path>: " in front of its message (and the same code).
absl::Status InFile(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::Status Invalid(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// errno as a status, after "<path>: <what>: ".
absl::Status SystemError(const std::string& path, const std::string& what) {
  const int error = errno;
  if (error == 0) {
    return absl::DataLossError(absl::StrCat(path, ": ", what, ": unexpected end of file"));
  }
  return absl::ErrnoToStatus(error, absl::StrCat(path, ": ", what));
}

// A failed read of `file`: the system's reason, or the file ending before its announced size
// (it changed while being read).
absl::Status ReadFailure(const std::string& path, std::FILE* file, const std::string& what) {
  if (std::ferror(file)) return SystemError(path, what);
  return absl::DataLossError(absl::StrCat(path, ": ", what, ": the file ended early"));
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// Reads exactly `size` bytes; false when the file ends first or a read fails.
bool ReadExactly(std::FILE* file, void* bytes, size_t size) {
  return size == 0 || std::fread(bytes, 1, size, file) == size;
}

uint32_t LittleEndian(const unsigned char* bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = value << 8 | bytes[i];
  return value;
}

// Converts `raw`, whose bytes hold `shape` in column-major order, to a fresh C-order array.
NDArray FortranToC(const NDArray& raw) {
  NDArray c_order = NDArray::Empty(raw.shape(), raw.dtype());
  DLTensor column_major = *raw.dl();
  std::vector<int64_t> strides(raw.shape().size());
  int64_t stride = 1;
  for (size_t d = 0; d < strides.size(); ++d) {
    strides[d] = stride;
    stride *= raw.shape()[d];
  }
  column_major.strides = strides.data();
  CopyElements(column_major, *c_order.dl());
  return c_order;
}

// Writes all of `bytes`; false with errno set on failure.
bool WriteAll(int fd, const void* bytes, size_t size) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t written = ::write(fd, p, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

// Writes the preamble, header and data of `array` to `fd`.
absl::Status WriteNpy(int fd, const std::string& path, const std::string& descr,
                      const NDArray& array) {
  std::string header = npy::FormatHeader(descr, array.shape());
  // Version 1.0 counts the header in 16 bits, 2.0 in 32. Padding with spaces and a final newline
  // makes preamble, length and header a multiple of kHeaderAlignment.
  auto padded_size = [&](size_t length_bytes) {
    const size_t unpadded = kPreambleSize + length_bytes + header.size() + 1;
    return (unpadded + kHeaderAlignment - 1) / kHeaderAlignment * kHeaderAlignment - kPreambleSize -
           length_bytes;
  };
  const bool v1 = padded_size(2) <= 0xffff;
  const size_t length_bytes = v1 ? 2 : 4;
  header.resize(padded_size(length_bytes) - 1, ' ');
  header.push_back('\n');

  std::string preamble(kMagic, kMagicSize);
  preamble.push_back(static_cast<char>(v1 ? 1 : 2));
  preamble.push_back(0);
  for (size_t i = 0; i < length_bytes; ++i) {
    preamble.push_back(static_cast<char>(header.size() >> (8 * i) & 0xff));
  }
  if (!WriteAll(fd, preamble.data(), preamble.size()) ||
      !WriteAll(fd, header.data(), header.size())) {
    return SystemError(path, "write failed");
  }
  const size_t data_bytes = static_cast<size_t>(array.NumBytes());
  if (array.IsContiguous()) {
    if (!WriteAll(fd, array.data<char>(), data_bytes)) return SystemError(path, "write failed");
    return absl::OkStatus();
  }
  std::unique_ptr<char[]> compact(new char[data_bytes]);
  if (absl::Status status = array.CopyToBytes(compact.get(), data_bytes); !status.ok()) {
    return InFile(path, status);
  }
  if (!WriteAll(fd, compact.get(), data_bytes)) return SystemError(path, "write failed");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NDArray> LoadNpy(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) return SystemError(path, "cannot open");
  struct stat info;
  if (::fstat(::fileno(file.get()), &info) != 0) return SystemError(path, "cannot stat");
  if (!S_ISREG(info.st_mode)) return Invalid(path, "not a regular file");
  const uint64_t file_size = static_cast<uint64_t>(info.st_size);

  unsigned char preamble[kPreambleSize + 4];
  const size_t got = std::fread(preamble, 1, kPreambleSize, file.get());
  if (std::memcmp(preamble, kMagic, std::min(got, kMagicSize)) != 0) {
    return Invalid(path, "not a .npy file (bad magic)");
  }
  if (got == 0) return Invalid(path, "empty file, not a .npy file");
  if (got < kPreambleSize) return Invalid(path, "truncated: the file ends inside the preamble");
  const int major = preamble[kMagicSize], minor = preamble[kMagicSize + 1];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Invalid(path, absl::StrCat("unsupported .npy format version ", major, ".", minor,
                                      " (1.0, 2.0 and 3.0 are read)"));
  }
  const int length_bytes = major == 1 ? 2 : 4;
  if (!ReadExactly(file.get(), preamble + kPreambleSize, length_bytes)) {
    return Invalid(path, "truncated: the file ends inside the header length");
  }
  const uint64_t header_size = LittleEndian(preamble + kPreambleSize, length_bytes);
  const uint64_t data_start = kPreambleSize + length_bytes + header_size;
  if (data_start > file_size) {
    return Invalid(path, absl::StrCat("truncated header: ", header_size, " bytes announced, ",
                                      file_size - kPreambleSize - length_bytes, " present"));
  }
  std::string header_text(header_size, '\0');
  if (!ReadExactly(file.get(), header_text.data(), header_size)) {
    return ReadFailure(path, file.get(), "cannot read the header");
  }
  absl::StatusOr<npy::Header> header = npy::ParseHeader(header_text);
  if (!header.ok()) return InFile(path, header.status());

  int64_t need = DLTypeBytes(header->dtype);
  for (int64_t extent : header->shape) {
    if (__builtin_mul_overflow(need, extent, &need)) {
      return Invalid(path,
                     absl::StrCat("shape ", npy::ShapeToPython(header->shape), " is too large"));
    }
  }
  const uint64_t have = file_size - data_start;
  if (have != static_cast<uint64_t>(need)) {
    return Invalid(
        path,
        absl::StrCat(have < static_cast<uint64_t>(need) ? "truncated data" : "trailing bytes",
                     ": shape ", npy::ShapeToPython(header->shape), " of '", header->descr,
                     "' needs ", need, " bytes of data, the file has ", have, " after the header"));
  }
  NDArray array = NDArray::Empty(header->shape, header->dtype);
  if (!ReadExactly(file.get(), array.data<char>(), static_cast<size_t>(need))) {
    return ReadFailure(path, file.get(), "cannot read the data");
  }
  if (header->fortran_order && header->shape.size() > 1) return FortranToC(array);
  return array;
}

absl::Status SaveNpy(const std::string& path, const NDArray& array) {
  if (!array.defined()) return Invalid(path, "cannot save a null NDArray");
  absl::StatusOr<std::string> descr = npy::DescrOf(array.dtype());
  if (!descr.ok()) return InFile(path, descr.status());

  // A name no other writer in this process or another one picks at the same time.
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = absl::StrCat(path, ".tmp.", ::getpid(), ".", counter.fetch_add(1));
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return SystemError(path, absl::StrCat("cannot create '", temporary, "'"));
  absl::Status status = WriteNpy(fd, path, *descr, array);
  if (::close(fd) != 0 && status.ok()) status = SystemError(path, "write failed on close");
  if (status.ok() && std::rename(temporary.c_str(), path.c_str()) != 0) {
    status = SystemError(path, absl::StrCat("cannot rename '", temporary, "' to it"));
  }
  if (!status.ok()) ::unlink(temporary.c_str());
  return status;
}

}  // namespace tessel::runtime
