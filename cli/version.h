#pragma once

#include <string>

namespace tessel::cli {

// The text of `tessel version`: the git commit the binary was built from, the compiler and build
// mode, and the version of every Debian package and of the CUDA toolkit the build found. A package
// the build did not find is reported as "not installed".
std::string VersionReport();

}  // namespace tessel::cli
