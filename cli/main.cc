// The `tessel` binary: see cli/commands.h.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::cli::RunCommandLine(args, std::cout, std::cerr);
}
