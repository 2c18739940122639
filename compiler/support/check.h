#pragma once

#include <sstream>
#include <string>

// Internal invariants. A failed TESSEL_CHECK is a bug in Tessel, never a user's mistake (those are
// absl::Status): it prints file, line, the condition and any streamed message, then aborts. The
// message is built only when the condition fails, so a check costs one branch when it holds.
//
//   TESSEL_CHECK(extent > 0) << "loop " << name << " has extent " << extent;
//   TESSEL_UNREACHABLE() << "unknown node kind " << kind;

namespace tessel::internal {

class FatalError {
 public:
  FatalError(const char* file, int line, const char* condition);
  [[noreturn]] ~FatalError();
  std::ostringstream& stream() { return message_; }

 private:
  const char* file_;
  int line_;
  const char* condition_;
  std::ostringstream message_;
};

}  // namespace tessel::internal

#define TESSEL_CHECK(condition) \
  while (!(condition)) ::tessel::internal::FatalError(__FILE__, __LINE__, #condition).stream()

#define TESSEL_UNREACHABLE() \
  while (true) ::tessel::internal::FatalError(__FILE__, __LINE__, "unreachable").stream()
