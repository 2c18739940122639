#include "compiler/support/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace tessel::support {

bool WriteAll(int fd, absl::string_view text) {
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace tessel::support
