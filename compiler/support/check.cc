#include "compiler/support/check.h"

#include <cstdio>
#include <cstdlib>

namespace tessel::internal {

FatalError::FatalError(const char* file, int line, const char* condition)
    : file_(file), line_(line), condition_(condition) {}

FatalError::~FatalError() {
  const std::string message = message_.str();
  std::fprintf(stderr, "%s:%d: internal error: check failed: %s%s%s\n", file_, line_, condition_,
               message.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace tessel::internal
