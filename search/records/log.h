#pragma once

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "search/records/record.h"

// Tuning logs: JSON Lines files, one Record (record.h) per line, appended batch by batch.
//
// Crash safety: each batch goes out in one write and is fsync'ed before Append returns, so a
// killed tuner leaves every returned batch intact and at most one torn final line (no newline).
// ReadLog skips such a line by default; LogWriter drops it when it reopens the file, so later
// batches start on a line of their own.
namespace tessel::search {

class LogWriter {
 public:
  // Opens `path` for appending, creating it (mode 0644) when absent. An error names the path.
  static absl::StatusOr<LogWriter> Open(const std::string& path);

  LogWriter(LogWriter&& other) noexcept;
  LogWriter& operator=(LogWriter&& other) noexcept;
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  ~LogWriter();

  // Writes one line per record, then flushes and fsyncs. A record with a non-finite cost or
  // timing is rejected (JSON cannot hold it) before anything of the batch is written. Invalid
  // UTF-8 in strings (compiler output in error messages) is replaced, not rejected.
  absl::Status Append(const std::vector<Record>& records);

  const std::string& path() const { return path_; }

 private:
  LogWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

struct LogReadOptions {
  // A final line without a newline that does not parse is what a killed writer leaves: skip it
  // (true) or report it as an error (false).
  bool skip_torn_last_line = true;
};

// Every record of the log, in file order. Blank lines are skipped. A malformed line is an error
// "PATH:LINE: ..." naming the problem; a missing file is NotFound naming the path.
absl::StatusOr<std::vector<Record>> ReadLog(const std::string& path,
                                            const LogReadOptions& options = {});

// The config indices already measured for the task with this key, failed ones included, so that
// a resumed search never measures a config twice. Records without an index (-1) are left out.
std::set<int64_t> MeasuredIndices(const std::vector<Record>& records, const std::string& task_key);

}  // namespace tessel::search
