// conformance_case ROOT NAME TARGET: one case of `tessel conformance ROOT --target TARGET`, the
// process `tessel conformance` runs each case in (cli/conformance.h). Prints "<name>: <result>";
// exit status 0 when the case passed, 1 otherwise (with the reason on stderr when the case
// printed no line), 2 on a wrong command line.
#include <iostream>

#include "cli/conformance_case.h"
#include "compiler/target/target.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: conformance_case ROOT NAME TARGET\n";
    return 2;
  }
  absl::StatusOr<tessel::target::Target> target = tessel::target::Target::Parse(argv[3]);
  if (!target.ok()) {
    std::cerr << "target: " << target.status().message() << "\n";
    return 2;
  }
  const absl::Status s = tessel::cli::RunOneConformanceCase(argv[1], argv[2], *target, std::cout);
  if (absl::IsNotFound(s)) std::cerr << s.message() << "\n";
  return s.ok() ? 0 : 1;
}
