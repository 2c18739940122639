#pragma once

#include <string>

// For the experiments' tests: the files a run writes.
namespace tessel::experiments::testing {

// The file's contents ("" when it cannot be read).
std::string ReadFile(const std::string& path);
// The number of lines of `text` (its newlines).
int CountLines(const std::string& text);
// $TEST_TMPDIR/name.
std::string TestOutDir(const std::string& name);

}  // namespace tessel::experiments::testing
