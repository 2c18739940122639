#include "search/measure/child_process.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

extern char** environ;

namespace tessel::search {
namespace {

// A pidfd for pid (readable once it exits), or -1 where the kernel has none.
int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd >= 0 ? static_cast<int>(fd) : -1;
#else
  (void)pid;
  return -1;
#endif
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  const char* text = strsignal(signal);
  if (abbrev == nullptr) return absl::StrCat("signal ", signal, " (", text ? text : "?", ")");
  return absl::StrCat("signal SIG", abbrev, " (", text ? text : "?", ")");
}

}  // namespace

std::string DescribeExit(const ChildExit& exit) {
  switch (exit.kind) {
    case ChildExit::Kind::kExited:
      return absl::StrCat("exited with status ", exit.code);
    case ChildExit::Kind::kSignaled:
      return absl::StrCat("killed by ", SignalName(exit.signal));
    case ChildExit::Kind::kTimedOut:
      return "timed out";
  }
  return "ended";
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(
    const std::vector<std::string>& argv, const std::string& log_path, double timeout_seconds) {
  std::vector<std::string> text = argv;
  std::vector<char*> args;
  for (std::string& a : text) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);

  const Clock::time_point start = Clock::now();
  pid_t pid = 0;
  const int error = posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start '", argv[0], "': ", std::strerror(error)));
  }
  const auto timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(pid, OpenPidfd(pid), start, start + timeout));
}

ChildProcess::~ChildProcess() {
  if (!exit_) Kill();
  if (pidfd_ >= 0) close(pidfd_);
}

void ChildProcess::Record(int status) {
  ChildExit exit;
  exit.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  if (WIFSIGNALED(status)) {
    exit.kind = ChildExit::Kind::kSignaled;
    exit.signal = WTERMSIG(status);
  } else {
    exit.kind = ChildExit::Kind::kExited;
    exit.code = WEXITSTATUS(status);
  }
  exit_ = exit;
}

std::optional<ChildExit> ChildProcess::Check() {
  if (exit_) return exit_;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    Record(status);
    return exit_;
  }
  if (Clock::now() >= deadline_) return Kill();
  return std::nullopt;
}

ChildExit ChildProcess::Kill() {
  if (exit_) return *exit_;
  kill(-pid_, SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r == pid_ && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    Record(status);  // it ended on its own just before the kill
  } else {
    ChildExit exit;
    exit.kind = ChildExit::Kind::kTimedOut;
    exit.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    exit_ = exit;
  }
  return *exit_;
}

ChildExit ChildProcess::Wait() {
  for (;;) {
    if (std::optional<ChildExit> exit = Check()) return *exit;
    WaitForAny({this}, 1.0);
  }
}

void ChildProcess::WaitForAny(const std::vector<ChildProcess*>& children, double max_seconds) {
  const Clock::time_point now = Clock::now();
  double wait = max_seconds;
  std::vector<pollfd> fds;
  for (ChildProcess* child : children) {
    if (child->exit_) return;  // already known: nothing to wait for
    wait = std::min(wait, std::chrono::duration<double>(child->deadline_ - now).count());
    if (child->pidfd_ >= 0) {
      fds.push_back({child->pidfd_, POLLIN, 0});
    } else {
      wait = std::min(wait, 0.002);  // no pidfd: poll waitpid every 2 ms
    }
  }
  const int ms = static_cast<int>(std::ceil(std::max(wait, 0.0) * 1e3));
  poll(fds.data(), fds.size(), ms);
}

std::string LastLogLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  std::string last;
  for (absl::string_view line : absl::StrSplit(tail, '\n')) {
    absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (!stripped.empty()) last = std::string(stripped);
  }
  return last;
}

}  // namespace tessel::search
