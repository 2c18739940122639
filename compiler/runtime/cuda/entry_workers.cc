#include "compiler/runtime/cuda/entry_workers.h"

#include <absl/status/status.h>
#include <absl/strings/str_cat.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "compiler/support/write_all.h"

namespace tessel::runtime::cuda {
namespace {

// The worker: entries first .. n - 1, a line each, until one says stop.
[[noreturn]] void Work(int fd, size_t first, size_t n,
                       const std::function<WorkerStep(size_t)>& run) {
  for (size_t i = first; i < n; ++i) {
    const WorkerStep step = run(i);
    if (!support::WriteAll(fd, step.line + "\n")) _exit(3);
    if (!step.go_on) break;
  }
  _exit(0);  // no static destructors: the driver's state dies with the process
}

// Why a worker that ended before answering gave no line.
absl::Status WhyNoLine(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return absl::InternalError(
        absl::StrCat("its process was killed by signal ", signal, " (", strsignal(signal), ")"));
  }
  return absl::InternalError(
      absl::StrCat("its process exited with status ", WEXITSTATUS(status), " before answering"));
}

// Appends the worker's answers, a line each, to results until it closes fd; false when an answer
// took longer than timeout_seconds after the one before (or after the start).
bool ReadAnswers(int fd, int timeout_seconds, std::vector<absl::StatusOr<std::string>>& results) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  std::string pending;
  char buffer[4096];
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;  // the deadline check decides
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    pending.append(buffer, static_cast<size_t>(got));
    for (size_t end; (end = pending.find('\n')) != std::string::npos;) {
      results.push_back(pending.substr(0, end));
      pending.erase(0, end + 1);
      deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
    }
  }
}

void Reap(pid_t pid, int& status) {
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::vector<absl::StatusOr<std::string>> RunInWorkers(size_t n,
                                                      const std::function<WorkerStep(size_t)>& run,
                                                      int timeout_seconds) {
  std::vector<absl::StatusOr<std::string>> results;
  results.reserve(n);
  while (results.size() < n) {
    int fds[2];
    if (pipe(fds) != 0) {
      results.push_back(absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno))));
      continue;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      results.push_back(absl::InternalError(absl::StrCat("fork: ", std::strerror(errno))));
      continue;
    }
    if (pid == 0) {
      close(fds[0]);
      Work(fds[1], results.size(), n, run);
    }
    close(fds[1]);
    const size_t first = results.size();
    const bool in_time = ReadAnswers(fds[0], timeout_seconds, results);
    close(fds[0]);
    int status = 0;
    if (!in_time) {
      kill(pid, SIGKILL);
      Reap(pid, status);
      results.push_back(absl::DeadlineExceededError(
          absl::StrCat("did not finish within ", timeout_seconds, " s; its process was killed")));
      continue;
    }
    Reap(pid, status);
    // A worker that ends with entries left either stopped after an answer with go_on = false (it
    // exits cleanly; the next worker takes over) or ended on the entry it was running. A clean
    // exit without any answer is the latter too, so that every worker moves the loop on.
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (results.size() < n && (!clean || results.size() == first)) {
      results.push_back(WhyNoLine(status));
    }
  }
  return results;
}

}  // namespace tessel::runtime::cuda
