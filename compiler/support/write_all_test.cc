#include "compiler/support/write_all.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace tessel::support {
namespace {

TEST(WriteAllTest, WritesMoreThanAPipeHoldsAtOnce) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string text(1 << 20, 'x');  // a pipe holds 64 KiB: the writes come short
  std::string read_back;
  std::thread reader([&] {
    char buffer[4096];
    ssize_t n;
    while ((n = read(fds[0], buffer, sizeof buffer)) > 0) read_back.append(buffer, n);
  });
  EXPECT_TRUE(WriteAll(fds[1], text));
  close(fds[1]);
  reader.join();
  close(fds[0]);
  EXPECT_EQ(read_back, text);
}

TEST(WriteAllTest, AGoneReaderIsAFailure) {
  signal(SIGPIPE, SIG_IGN);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  EXPECT_FALSE(WriteAll(fds[1], "line\n"));
  EXPECT_EQ(errno, EPIPE);
  close(fds[1]);
}

}  // namespace
}  // namespace tessel::support
