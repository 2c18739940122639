#include "search/records/log.h"

#include <absl/strings/str_cat.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "compiler/support/status_macros.h"
#include "compiler/support/write_all.h"

namespace tessel::search {

namespace {

absl::Status ErrnoError(const std::string& path, const std::string& what) {
  int err = errno;
  std::string message = absl::StrCat(path, ": ", what, ": ", std::strerror(err));
  return err == ENOENT ? absl::NotFoundError(message) : absl::InternalError(message);
}

absl::Status CheckFinite(const Record& record) {
  const MeasureResult& r = record.result;
  bool finite = std::isfinite(r.build_seconds) && std::isfinite(r.timestamp);
  for (double c : r.costs) finite = finite && std::isfinite(c);
  if (finite) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("record for ", record.task.Key(), " config ", record.config_index,
                   ": costs and timings must be finite (JSON cannot hold inf or nan)"));
}

// Cuts a torn final line (bytes after the last newline) off the file open as fd.
absl::Status DropTornTail(const std::string& path, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return ErrnoError(path, "stat");
  off_t size = st.st_size;
  if (size == 0) return absl::OkStatus();
  // Scan backwards in blocks for the last newline.
  constexpr off_t kBlock = 4096;
  char buf[kBlock];
  off_t end = size;
  bool last_byte = true;
  while (end > 0) {
    off_t begin = end > kBlock ? end - kBlock : 0;
    ssize_t n = pread(fd, buf, static_cast<size_t>(end - begin), begin);
    if (n != end - begin) return ErrnoError(path, "read");
    for (off_t i = n - 1; i >= 0; --i) {
      if (buf[i] == '\n') {
        if (last_byte) return absl::OkStatus();  // ends with a newline: nothing torn
        if (ftruncate(fd, begin + i + 1) != 0) return ErrnoError(path, "truncate");
        return absl::OkStatus();
      }
      last_byte = false;
    }
    end = begin;
  }
  if (ftruncate(fd, 0) != 0) return ErrnoError(path, "truncate");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LogWriter> LogWriter::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(path, "cannot open tuning log");
  LogWriter writer(path, fd);
  TESSEL_RETURN_IF_ERROR(DropTornTail(path, fd));
  return writer;
}

LogWriter::LogWriter(LogWriter&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

LogWriter& LogWriter::operator=(LogWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

LogWriter::~LogWriter() {
  if (fd_ >= 0) close(fd_);
}

absl::Status LogWriter::Append(const std::vector<Record>& records) {
  std::string batch;
  for (const Record& record : records) {
    TESSEL_RETURN_IF_ERROR(CheckFinite(record));
    batch += ToJson(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    batch += '\n';
  }
  // One write per batch (looping only on a short write), so lines of concurrent writers to the
  // same file do not interleave in practice.
  if (!support::WriteAll(fd_, batch)) return ErrnoError(path_, "write");
  if (fsync(fd_) != 0) return ErrnoError(path_, "fsync");
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Record>> ReadLog(const std::string& path,
                                            const LogReadOptions& options) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, "cannot open tuning log");
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status error = ErrnoError(path, "read");
      close(fd);
      return error;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);

  std::vector<Record> records;
  size_t pos = 0;
  for (int64_t line_no = 1; pos < text.size(); ++line_no) {
    size_t newline = text.find('\n', pos);
    const bool last_without_newline = newline == std::string::npos;
    const size_t end = last_without_newline ? text.size() : newline;
    const std::string line = text.substr(pos, end - pos);
    pos = last_without_newline ? text.size() : newline + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;

    const std::string where = absl::StrCat(path, ":", line_no, ": ");
    nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      if (last_without_newline) {
        if (options.skip_torn_last_line) break;
        return absl::DataLossError(absl::StrCat(
            where, "torn last line (no newline, not valid JSON): a writer was killed mid-write"));
      }
      return absl::DataLossError(absl::StrCat(where, "malformed record: not valid JSON"));
    }
    absl::StatusOr<Record> record = RecordFromJson(json);
    if (!record.ok()) {
      return absl::DataLossError(absl::StrCat(where, record.status().message()));
    }
    records.push_back(*std::move(record));
  }
  return records;
}

std::set<int64_t> MeasuredIndices(const std::vector<Record>& records, const std::string& task_key) {
  std::set<int64_t> indices;
  for (const Record& r : records) {
    if (r.config_index >= 0 && r.task.Key() == task_key) indices.insert(r.config_index);
  }
  return indices;
}

}  // namespace tessel::search
