#pragma once

#include <cstdlib>
#include <string>

// Paths of this package's binaries in a test's runfiles (listed in the test's `data`).
namespace tessel::search::testing {

inline std::string RunfilesBinary(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "tessel") +
         "/search/measure/" + name;
}

}  // namespace tessel::search::testing
