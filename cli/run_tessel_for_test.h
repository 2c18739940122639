#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"

// The command line run in-process, for tests: exit code and both streams.
namespace tessel::cli {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

inline Outcome RunTessel(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCommandLine(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace tessel::cli
