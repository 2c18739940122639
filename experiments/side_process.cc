#include "experiments/side_process.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "compiler/runtime/npy.h"
#include "compiler/support/status_macros.h"
#include "compiler/support/write_all.h"
#include "experiments/runfiles.h"

extern char** environ;

namespace tessel::experiments {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The worker's ends of the pipes, moved above the standard descriptors and 3 and 4, so that
// dup2 onto 3 and 4 in the child never overwrites one of them.
int HighDescriptor(int fd) {
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return high;
}

absl::Status SystemError(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// The next line from fd without its '\n'; nullopt at the end of the stream.
std::optional<std::string> ReadLine(int fd) {
  std::string line;
  char c;
  while (true) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return line.empty() ? std::nullopt : std::optional<std::string>(line);
    if (c == '\n') return line;
    line.push_back(c);
  }
}

// The last lines of a text file (at most ~2 KB), for a worker that died.
std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  if (text.size() > 2000) text = "..." + text.substr(text.size() - 2000);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

absl::StatusOr<std::vector<runtime::NDArray>> LoadArrays(const std::string& dir,
                                                         const std::string& prefix) {
  std::vector<runtime::NDArray> arrays;
  for (int k = 0;; ++k) {
    const std::string path = absl::StrCat(dir, "/", prefix, k, ".npy");
    if (!fs::exists(path)) return arrays;
    TESSEL_ASSIGN_OR_RETURN(runtime::NDArray a, runtime::LoadNpy(path));
    arrays.push_back(std::move(a));
  }
}

double SumCpuSeconds(const std::vector<SideProcess*>& sides, size_t except) {
  double total = 0;
  for (size_t i = 0; i < sides.size(); ++i) {
    if (i != except) total += sides[i]->CpuSeconds();
  }
  return total;
}

// Waits, up to two seconds, until the sides other than `except` use less than idle_fraction of
// a core over a 10 ms window: their threads have stopped spinning after their last batch. The
// window is longer than libgomp's spin after a parallel region (GOMP_SPINCOUNT=100000 pauses,
// about 3 ms measured here) and than a scheduler tick, so a spin cannot hide between samples.
void WaitUntilOthersIdle(const std::vector<SideProcess*>& sides, size_t except,
                         double idle_fraction) {
  constexpr double kWindow = 10e-3;
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < give_up) {
    const double before = SumCpuSeconds(sides, except);
    std::this_thread::sleep_for(std::chrono::duration<double>(kWindow));
    if (SumCpuSeconds(sides, except) - before < idle_fraction * kWindow) return;
  }
}

absl::Status CheckOptions(const RoundRobinOptions& o) {
  if (o.warmup < 0) {
    return absl::InvalidArgumentError(absl::StrCat("warmup must be >= 0, got ", o.warmup));
  }
  if (o.warm_runs_per_repeat < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("warm_runs_per_repeat must be >= 0, got ", o.warm_runs_per_repeat));
  }
  if (o.repeat < 1) {
    return absl::InvalidArgumentError(absl::StrCat("repeat must be >= 1, got ", o.repeat));
  }
  if (!(o.min_repeat_ms >= 0) || !std::isfinite(o.min_repeat_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_repeat_ms must be a number >= 0, got ", o.min_repeat_ms));
  }
  if (!(o.min_warm_ms >= 0) || !std::isfinite(o.min_warm_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_warm_ms must be a number >= 0, got ", o.min_warm_ms));
  }
  return absl::OkStatus();
}

// The untimed runs before a timed batch: `runs`, then more until they have lasted min_warm_ms
// (each further batch sized from the last one's time per run).
absl::Status Warm(SideProcess& side, int64_t runs, double min_warm_ms) {
  const double goal = min_warm_ms * 1e-3;
  double elapsed = 0;
  for (int64_t batch = std::max<int64_t>(runs, min_warm_ms > 0 ? 1 : 0); batch > 0;) {
    TESSEL_ASSIGN_OR_RETURN(double per_run, side.TimeBatch(batch));
    elapsed += per_run * static_cast<double>(batch);
    if (elapsed >= goal) break;
    batch = per_run > 0
                ? static_cast<int64_t>(std::clamp(std::ceil((goal - elapsed) / per_run), 1.0, 1e6))
                : batch * 2;
  }
  return absl::OkStatus();
}

// Grows a side's runs per repeat until one repeat lasts min_repeat_ms: from the last batch's
// time, aim 10% past the goal, at least doubling and at most x16 per step (runtime/timer.h's
// rule).
absl::StatusOr<int64_t> CalibrateRuns(SideProcess& side, double min_repeat_ms) {
  int64_t runs = 1;
  if (min_repeat_ms <= 0) return runs;
  const double goal = min_repeat_ms * 1e-3;
  while (true) {
    TESSEL_ASSIGN_OR_RETURN(double per_run, side.TimeBatch(runs));
    const double batch = per_run * static_cast<double>(runs);
    if (batch >= goal || runs >= (int64_t{1} << 24)) return runs;
    const double wanted = batch > 0 ? static_cast<double>(runs) * goal * 1.1 / batch : 16.0 * runs;
    runs = static_cast<int64_t>(std::clamp(std::ceil(wanted), 2.0 * runs, 16.0 * runs));
  }
}

}  // namespace

absl::StatusOr<std::string> TimingWorkerPath() {
  if (const char* env = std::getenv("TESSEL_TIMING_WORKER"); env != nullptr && *env != '\0') {
    if (access(env, X_OK) == 0) return std::string(env);
    return absl::NotFoundError(
        absl::StrCat("$TESSEL_TIMING_WORKER is '", env, "', which is not an executable file"));
  }
  return FindRunfile("experiments/timing_worker");
}

absl::StatusOr<std::unique_ptr<SideProcess>> SideProcess::Start(const std::string& name,
                                                                nlohmann::json request) {
  TESSEL_ASSIGN_OR_RETURN(const std::string worker, TimingWorkerPath());
  // A worker that dies makes the next write to its pipe fail with EPIPE instead of killing us.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { signal(SIGPIPE, SIG_IGN); });
  std::unique_ptr<SideProcess> side(new SideProcess);
  side->name_ = name;
  std::string dir_template = (fs::temp_directory_path() / "tessel-side-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr)
    return SystemError("cannot make a folder for " + name);
  side->data_dir_ = dir_template;
  request["data_dir"] = side->data_dir_;
  const std::string request_path = side->data_dir_ + "/request.json";
  const std::string log_path = side->data_dir_ + "/worker.log";
  {
    std::ofstream out(request_path);
    out << request.dump();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", request_path));
  }
  int requests[2], replies[2];
  if (pipe(requests) != 0) return SystemError("pipe");
  if (pipe(replies) != 0) {
    close(requests[0]);
    close(requests[1]);
    return SystemError("pipe");
  }
  const int child_in = HighDescriptor(requests[0]), child_out = HighDescriptor(replies[1]);
  side->requests_fd_ = HighDescriptor(requests[1]);
  side->replies_fd_ = HighDescriptor(replies[0]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, child_in, 3);
  posix_spawn_file_actions_adddup2(&actions, child_out, 4);
  std::vector<char*> argv = {const_cast<char*>(worker.c_str()),
                             const_cast<char*>(request_path.c_str()), nullptr};
  const int spawned =
      posix_spawn(&side->pid_, worker.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(child_in);
  close(child_out);
  if (spawned != 0) {
    side->pid_ = -1;
    return absl::InternalError(
        absl::StrCat(name, ": cannot start ", worker, ": ", std::strerror(spawned)));
  }

  const std::optional<std::string> line = ReadLine(side->replies_fd_);
  if (!line) return side->Failure("did not start");
  if (line->starts_with("error ")) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", line->substr(6)));
  }
  if (!line->starts_with("ready ")) return side->Failure("answered '" + *line + "'");
  side->info_ = nlohmann::json::parse(line->substr(6), nullptr, /*allow_exceptions=*/false);
  if (side->info_.is_discarded()) return side->Failure("sent unreadable setup info");
  TESSEL_ASSIGN_OR_RETURN(side->inputs_, LoadArrays(side->data_dir_, "input_"));
  TESSEL_ASSIGN_OR_RETURN(side->outputs_, LoadArrays(side->data_dir_, "output_"));
  return side;
}

SideProcess::~SideProcess() {
  if (requests_fd_ >= 0) {
    support::WriteAll(requests_fd_, "quit\n");
    close(requests_fd_);
  }
  if (replies_fd_ >= 0) close(replies_fd_);
  if (pid_ > 0) {
    const Clock::time_point give_up = Clock::now() + std::chrono::seconds(1);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > give_up) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::error_code ec;
  if (!data_dir_.empty()) fs::remove_all(data_dir_, ec);
}

absl::Status SideProcess::Failure(const std::string& what) {
  // The pipe closes as the worker exits: give it a moment to be reaped.
  std::string how = "is still running";
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(1);
  int status = 0;
  while (pid_ > 0 && Clock::now() < give_up) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      how = WIFSIGNALED(status) ? absl::StrCat("was killed by signal ", WTERMSIG(status))
                                : absl::StrCat("exited with status ", WEXITSTATUS(status));
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::string log = Tail(data_dir_ + "/worker.log");
  return absl::InternalError(absl::StrCat(name_, ": the timing worker ", what, " (it ", how, ")",
                                          log.empty() ? "" : "; its log ends:\n" + log));
}

absl::StatusOr<double> SideProcess::TimeBatch(int64_t runs) {
  if (!support::WriteAll(requests_fd_, absl::StrCat("time ", runs, "\n")))
    return Failure("stopped reading");
  const std::optional<std::string> line = ReadLine(replies_fd_);
  if (!line) return Failure("stopped answering");
  if (line->starts_with("error ")) {
    return absl::InternalError(absl::StrCat(name_, ": ", line->substr(6)));
  }
  double seconds = 0;
  if (!line->starts_with("ok ") || !absl::SimpleAtod(line->substr(3), &seconds)) {
    return Failure("answered '" + *line + "'");
  }
  return seconds;
}

double SideProcess::CpuSeconds() const {
  clockid_t clock;
  timespec t{};
  if (pid_ <= 0 || clock_getcpuclockid(pid_, &clock) != 0 || clock_gettime(clock, &t) != 0) {
    return 0;
  }
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

absl::StatusOr<std::vector<SideTiming>> TimeRoundRobin(const std::vector<SideProcess*>& sides,
                                                       const RoundRobinOptions& options) {
  TESSEL_RETURN_IF_ERROR(CheckOptions(options));
  std::vector<SideTiming> timings(sides.size());
  for (int w = 0; w < options.warmup; ++w) {
    for (SideProcess* side : sides) TESSEL_RETURN_IF_ERROR(side->TimeBatch(1).status());
  }
  for (size_t i = 0; i < sides.size(); ++i) {
    TESSEL_ASSIGN_OR_RETURN(timings[i].runs_per_repeat,
                            CalibrateRuns(*sides[i], options.min_repeat_ms));
  }
  for (int r = 0; r < options.repeat; ++r) {
    for (size_t i = 0; i < sides.size(); ++i) {
      WaitUntilOthersIdle(sides, i, options.idle_fraction);
      TESSEL_RETURN_IF_ERROR(Warm(*sides[i], options.warm_runs_per_repeat, options.min_warm_ms));
      const double others_before = SumCpuSeconds(sides, i);
      const Clock::time_point start = Clock::now();
      TESSEL_ASSIGN_OR_RETURN(double seconds, sides[i]->TimeBatch(timings[i].runs_per_repeat));
      const double wall = std::chrono::duration<double>(Clock::now() - start).count();
      const double interference = (SumCpuSeconds(sides, i) - others_before) / wall;
      timings[i].seconds.push_back(seconds);
      timings[i].max_interference = std::max(timings[i].max_interference, interference);
    }
  }
  return timings;
}

}  // namespace tessel::experiments
