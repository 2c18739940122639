#pragma once

#include <absl/status/statusor.h>
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// Child processes with a deadline, for the measurement workers.
//
// A child runs in a process group of its own (so that killing it also kills what it started,
// such as the linker a build runs), with stdin from /dev/null, stdout and stderr to one log file,
// and every signal at its default action. At its deadline the whole group is killed with
// SIGKILL. A ChildProcess reaps its child in every case, in its destructor at the latest (which
// kills a child still running), so no zombie outlives it.
namespace tessel::search {

struct ChildExit {
  enum class Kind { kExited, kSignaled, kTimedOut };
  Kind kind = Kind::kExited;
  int code = 0;        // kExited: the exit status
  int signal = 0;      // kSignaled: the signal that ended it
  double seconds = 0;  // from spawn to exit (or to the kill)
};

// "killed by signal SIGSEGV (Segmentation fault)", "exited with status 3", "timed out".
std::string DescribeExit(const ChildExit& exit);

class ChildProcess {
 public:
  // Starts argv[0] (a path) with argv, stdout and stderr to `log_path`, to be killed
  // `timeout_seconds` from now. An error names the program and the system's reason.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Spawn(const std::vector<std::string>& argv,
                                                             const std::string& log_path,
                                                             double timeout_seconds);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Reaps the child if it has ended, or kills its group if its deadline has passed; the exit
  // once known (then always the same), nullopt while it runs.
  std::optional<ChildExit> Check();
  // Kills the group now and reaps the child (an exit of kind kTimedOut unless it had ended).
  ChildExit Kill();
  // Waits for the child's exit, killing it at its deadline.
  ChildExit Wait();

  // Blocks until one of `children` may have ended or reached its deadline, or `max_seconds`
  // passed (a pidfd poll where the kernel has pidfds, else short sleeps). Check() tells which.
  static void WaitForAny(const std::vector<ChildProcess*>& children, double max_seconds);

 private:
  using Clock = std::chrono::steady_clock;
  ChildProcess(pid_t pid, int pidfd, Clock::time_point start, Clock::time_point deadline)
      : pid_(pid), pidfd_(pidfd), start_(start), deadline_(deadline) {}
  // Records the exit from waitpid's status.
  void Record(int status);

  pid_t pid_;
  int pidfd_;  // -1 when the kernel has no pidfd_open
  Clock::time_point start_, deadline_;
  std::optional<ChildExit> exit_;
};

// The last non-empty line of a log file (at most its last 4 KiB are read), empty when none.
std::string LastLogLine(const std::string& path);

}  // namespace tessel::search
