#include "experiments/timed_side.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_replace.h>
#include <absl/strings/string_view.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "compiler/runtime/npy.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/write_all.h"

namespace tessel::experiments {
namespace {

// One reply line; a message's own line breaks are flattened.
bool Reply(int fd, absl::string_view word, absl::string_view rest) {
  std::string line = absl::StrCat(word, " ", rest);
  absl::StrReplaceAll({{"\n", " "}}, &line);
  return support::WriteAll(fd, line + "\n");
}

// The next request line, without its '\n'; false at the end of the requests.
bool ReadLine(int fd, std::string& line) {
  line.clear();
  char c;
  while (true) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return !line.empty();
    if (c == '\n') return true;
    line.push_back(c);
  }
}

absl::Status SaveArrays(const std::string& dir, const std::string& prefix,
                        const std::vector<runtime::NDArray>& arrays) {
  for (size_t k = 0; k < arrays.size(); ++k) {
    TESSEL_RETURN_IF_ERROR(runtime::SaveNpy(absl::StrCat(dir, "/", prefix, k, ".npy"), arrays[k]));
  }
  return absl::OkStatus();
}

// Mean seconds per run of `runs` back-to-back runs.
absl::StatusOr<double> TimeRuns(const TimedSide& side, int64_t runs) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t r = 0; r < runs; ++r) TESSEL_RETURN_IF_ERROR(side.run());
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / static_cast<double>(runs);
}

}  // namespace

int ServeTimedSide(const nlohmann::json& request, const TimedSideFactory& make, int requests_fd,
                   int replies_fd) {
  absl::StatusOr<TimedSide> side = make(request);
  if (side.ok()) {
    const std::string dir = request.value("data_dir", ".");
    absl::Status saved = SaveArrays(dir, "input_", side->inputs);
    if (saved.ok()) saved = SaveArrays(dir, "output_", side->outputs);
    if (!saved.ok()) side = saved;
  }
  if (!side.ok()) {
    Reply(replies_fd, "error", side.status().message());
    return 1;
  }
  if (!Reply(replies_fd, "ready", side->info.dump())) return 1;
  std::string line;
  while (ReadLine(requests_fd, line)) {
    if (line == "quit") return 0;
    int64_t runs = 0;
    if (!line.starts_with("time ") || !absl::SimpleAtoi(line.substr(5), &runs) || runs < 1) {
      Reply(replies_fd, "error", absl::StrCat("unknown request '", line, "'"));
      return 1;
    }
    absl::StatusOr<double> seconds = TimeRuns(*side, runs);
    const bool sent = seconds.ok() ? Reply(replies_fd, "ok", absl::StrFormat("%.9g", *seconds))
                                   : Reply(replies_fd, "error", seconds.status().message());
    if (!sent || !seconds.ok()) return 1;
  }
  return 0;
}

}  // namespace tessel::experiments
