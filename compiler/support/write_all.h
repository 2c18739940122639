#pragma once

#include <absl/strings/string_view.h>

namespace tessel::support {

// Writes all of text to fd, going on after short writes and interrupted ones; false, with errno
// set, when a write fails (or writes nothing), e.g. because the reading end of a pipe is gone.
bool WriteAll(int fd, absl::string_view text);

}  // namespace tessel::support
