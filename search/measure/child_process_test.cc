#include "search/measure/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace tessel::search {
namespace {

std::string LogPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + ".log";
}

std::unique_ptr<ChildProcess> Shell(const std::string& script, double timeout,
                                    const std::string& log = LogPath("child")) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn({"/bin/sh", "-c", script}, log, timeout);
  EXPECT_TRUE(child.ok()) << child.status();
  return std::move(*child);
}

// True once no process of group pgid is left (the kernel may take a moment to reap orphans).
bool GroupGone(pid_t pgid) {
  for (int i = 0; i < 200; ++i) {
    if (kill(-pgid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// True when pid is not a child of ours any more (reaped: no zombie).
bool Reaped(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD;
}

TEST(ChildProcessTest, ExitStatus) {
  ChildExit exit = Shell("exit 3", 10)->Wait();
  EXPECT_EQ(exit.kind, ChildExit::Kind::kExited);
  EXPECT_EQ(exit.code, 3);
  EXPECT_EQ(DescribeExit(exit), "exited with status 3");
}

TEST(ChildProcessTest, Signal) {
  ChildExit exit = Shell("kill -SEGV $$", 10)->Wait();
  EXPECT_EQ(exit.kind, ChildExit::Kind::kSignaled);
  EXPECT_EQ(exit.signal, SIGSEGV);
  EXPECT_EQ(DescribeExit(exit), "killed by signal SIGSEGV (Segmentation fault)");
}

TEST(ChildProcessTest, TimeoutKillsTheWholeGroupAndLeavesNoZombie) {
  // The shell starts a grandchild in the background: the group kill must take it too.
  std::unique_ptr<ChildProcess> child = Shell("sleep 30 & sleep 30", 0.3);
  const pid_t pid = child->pid();
  const auto start = std::chrono::steady_clock::now();
  ChildExit exit = child->Wait();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(exit.kind, ChildExit::Kind::kTimedOut);
  EXPECT_EQ(DescribeExit(exit), "timed out");
  EXPECT_GE(exit.seconds, 0.3);
  EXPECT_LT(waited, 5.0);
  EXPECT_TRUE(Reaped(pid));
  EXPECT_TRUE(GroupGone(pid));
}

TEST(ChildProcessTest, DestructorKillsARunningChild) {
  pid_t pid = 0;
  {
    std::unique_ptr<ChildProcess> child = Shell("sleep 30", 60);
    pid = child->pid();
    EXPECT_FALSE(child->Check().has_value());
  }
  EXPECT_TRUE(Reaped(pid));
  EXPECT_TRUE(GroupGone(pid));
}

TEST(ChildProcessTest, LogHasStdoutAndStderr) {
  const std::string log = LogPath("both");
  Shell("echo one; echo two >&2; echo", 10, log)->Wait();
  std::ifstream in(log);
  std::string a, b;
  std::getline(in, a);
  std::getline(in, b);
  EXPECT_EQ(a, "one");
  EXPECT_EQ(b, "two");
  EXPECT_EQ(LastLogLine(log), "two");
  EXPECT_EQ(LastLogLine(LogPath("no_such_log")), "");
}

TEST(ChildProcessTest, WaitForAnyReturnsWhenOneEnds) {
  std::unique_ptr<ChildProcess> fast = Shell("sleep 0.1", 10, LogPath("fast"));
  std::unique_ptr<ChildProcess> slow = Shell("sleep 30", 60, LogPath("slow"));
  const auto start = std::chrono::steady_clock::now();
  while (!fast->Check()) ChildProcess::WaitForAny({fast.get(), slow.get()}, 10);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(slow->Check().has_value());
}

TEST(ChildProcessTest, MissingProgramIsAnError) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> child =
      ChildProcess::Spawn({"/no/such/worker", "build"}, LogPath("missing"), 10);
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.status().message().find("/no/such/worker"), std::string::npos) << child.status();
}

}  // namespace
}  // namespace tessel::search
